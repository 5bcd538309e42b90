int main() { return 0; }  // Placeholder; filled in by the change that introduces it.
