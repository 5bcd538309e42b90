// Placeholder; filled in by the change that introduces it.
