// custom-call maps from a Shardy sharding rule: the `xla.sdy.sharding_rule`
// frontend attribute that JAX (custom_partitioning with a sharding_rule, FFI
// calls such as the LAPACK ones) and Shardy's round trip put on custom-calls:
//
//   #sdy.op_sharding_rule<([i, j], [j, k])->([i, k]) {i=8, j=16, k=4}
//                         reduction={j} need_replication={...} permutation={...}, custom>
//
// Each tensor (operands before "->", results after) lists, per dimension, the
// factors it is made of, most major first (`[ij]`: the dimension is i * |j| +
// j); a factor named in two tensors is the same index in both. So an output
// element has a value for each of its factors, and reads the operand elements
// whose factors shared with the output have those values and whose other
// factors take every value. Factors in a special set (reduction,
// need_replication, permutation, blocked_propagation) are not a
// correspondence between elements: they take every value too.
//
// Exact when every factor of the operand is shared with the output (a pure
// correspondence: one element read); otherwise a sound superset, approximate.
// Older `mhlo.sharding` attributes describe a placement, not factors: ignored.
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "indexing/maps/inverse.hpp"
#include "indexing/ops/op_maps_internal.hpp"

namespace hlo_index::indexing::detail {

namespace {

using Factors = std::vector<std::string>;  // one dimension, most major first
using Tensor = std::vector<Factors>;

struct ShardingRule {
  std::vector<Tensor> operands, results;
  std::map<std::string, std::int64_t, std::less<>> sizes;
  std::set<std::string, std::less<>> special;
};

constexpr std::string_view k_attribute = "xla.sdy.sharding_rule=\"";

[[noreturn]] void bad_rule(std::string_view why) {
  throw Unsupported(std::string("the xla.sdy.sharding_rule attribute: ").append(why));
}

// The rule's text inside frontend_attributes, if there is one.
std::optional<std::string_view> rule_text(const OpContext& op) {
  const std::string_view attributes = op.attribute("frontend_attributes").value_or("");
  const std::size_t at = attributes.find(k_attribute);
  if (at == std::string_view::npos) return std::nullopt;
  const std::size_t begin = at + k_attribute.size();
  std::size_t end = begin;
  while (end < attributes.size() && attributes[end] != '"') end += attributes[end] == '\\' ? 2 : 1;
  if (end >= attributes.size()) bad_rule("an unterminated string");
  return attributes.substr(begin, end - begin);
}

class RuleParser {
public:
  explicit RuleParser(std::string_view text) : m_text(text) {}

  ShardingRule parse() {
    ShardingRule rule;
    expect("#sdy.op_sharding_rule<");
    rule.operands = tensors();
    expect("->");
    rule.results = tensors();
    skip_space();
    if (peek('{')) {
      ++m_at;
      while (!accept('}')) {
        const std::string name = factor();
        expect("=");
        rule.sizes[name] = integer();
        accept(',');
      }
    }
    // Special factor sets ("reduction={j}"), then ", custom" and ">".
    for (;;) {
      if (accept('>')) break;
      if (accept(',')) continue;
      if (m_at >= m_text.size()) bad_rule("no closing '>'");
      if (m_text.substr(m_at).starts_with("custom")) {
        m_at += 6;
        continue;
      }
      const std::size_t start = m_at;
      while (m_at < m_text.size() && ((m_text[m_at] >= 'a' && m_text[m_at] <= 'z') || m_text[m_at] == '_')) ++m_at;
      if (m_at == start) bad_rule("an unexpected character");
      expect("=");
      expect("{");
      while (!accept('}')) {
        rule.special.insert(factor());
        accept(',');
      }
    }
    return rule;
  }

private:
  void skip_space() {
    while (m_at < m_text.size() && (m_text[m_at] == ' ' || m_text[m_at] == '\n')) ++m_at;
  }
  bool peek(char c) {
    skip_space();
    return m_at < m_text.size() && m_text[m_at] == c;
  }
  bool accept(char c) {
    if (!peek(c)) return false;
    ++m_at;
    return true;
  }
  void expect(std::string_view s) {
    skip_space();
    if (!m_text.substr(m_at).starts_with(s)) bad_rule(std::string("expected '").append(s).append("'"));
    m_at += s.size();
  }
  std::int64_t integer() {
    skip_space();
    std::int64_t value = 0;
    const std::size_t start = m_at;
    while (m_at < m_text.size() && m_text[m_at] >= '0' && m_text[m_at] <= '9') {
      if (value > (std::numeric_limits<std::int64_t>::max() - 9) / 10) bad_rule("a factor size out of range");
      value = value * 10 + (m_text[m_at++] - '0');
    }
    if (m_at == start) bad_rule("a factor without a size");
    return value;
  }
  // One factor symbol: a letter, and `_` with digits after it (`z_1`).
  std::string factor() {
    skip_space();
    if (m_at >= m_text.size() || m_text[m_at] < 'a' || m_text[m_at] > 'z') bad_rule("expected a factor");
    std::string name(1, m_text[m_at++]);
    if (m_at + 1 < m_text.size() && m_text[m_at] == '_' && m_text[m_at + 1] >= '0' && m_text[m_at + 1] <= '9') {
      name.push_back(m_text[m_at++]);
      while (m_at < m_text.size() && m_text[m_at] >= '0' && m_text[m_at] <= '9') name.push_back(m_text[m_at++]);
    }
    return name;
  }
  // "([i, j], [])": one list of dimensions per tensor.
  std::vector<Tensor> tensors() {
    expect("(");
    std::vector<Tensor> out;
    while (!accept(')')) {
      expect("[");
      Tensor t;
      while (!accept(']')) {
        Factors dim;
        skip_space();
        while (m_at < m_text.size() && m_text[m_at] >= 'a' && m_text[m_at] <= 'z') dim.push_back(factor());
        t.push_back(std::move(dim));
        accept(',');
      }
      out.push_back(std::move(t));
      accept(',');
    }
    return out;
  }

  std::string_view m_text;
  std::size_t m_at = 0;
};

ShardingRule checked_rule(const OpContext& op, std::string_view text) {
  ShardingRule rule = RuleParser(text).parse();
  if (rule.operands.size() != op.operand_count()) bad_rule("not one mapping per operand");
  if (rule.results.size() != op.output_count()) bad_rule("not one mapping per result");
  auto check = [&](const Tensor& t, const std::vector<std::int64_t>& dims) {
    if (t.size() != dims.size()) bad_rule("a mapping of the wrong rank");
    for (std::size_t d = 0; d < t.size(); ++d) {
      std::int64_t product = 1;
      for (const std::string& f : t[d]) {
        const auto it = rule.sizes.find(f);
        if (it == rule.sizes.end() || it->second <= 0) bad_rule("factor '" + f + "' has no size");
        product *= it->second;
        if (product > dims[d]) break;
      }
      if (product != dims[d]) bad_rule("factor sizes that do not multiply to a dimension's size");
    }
  };
  for (std::size_t j = 0; j < op.operand_count(); ++j) check(rule.operands[j], op.operand_dims(j));
  for (std::size_t k = 0; k < op.output_count(); ++k) check(rule.results[k], op.output_dims(k));
  return rule;
}

// Output `output` -> operand `operand` under the rule.
IndexingMap rule_map(const ShardingRule& rule, const std::vector<std::int64_t>& out, std::size_t output,
                     const std::vector<std::int64_t>& in, std::size_t operand) {
  // The value of each output factor, from the output's index.
  std::map<std::string, Expr, std::less<>> value;
  const Tensor& result = rule.results[output];
  for (std::size_t d = 0; d < result.size(); ++d) {
    std::int64_t stride = out[d];
    for (std::size_t i = 0; i < result[d].size(); ++i) {
      const std::string& f = result[d][i];
      const std::int64_t size = rule.sizes.at(f);
      stride /= size;
      Expr e = Expr::dim(u32(d));
      if (size == 1) {
        e = Expr::constant(0);
      } else {
        if (stride > 1) e = simplify::floor_div(e, stride);
        if (i > 0) e = simplify::mod(e, size);
      }
      if (rule.special.count(f) == 0) value.emplace(f, e);
    }
  }
  std::vector<Expr> results;
  std::vector<std::int64_t> ranges;
  bool exact = true;
  const Tensor& source = rule.operands[operand];
  for (std::size_t d = 0; d < source.size(); ++d) {
    Expr index = Expr::constant(0);
    for (const std::string& f : source[d]) {
      const std::int64_t size = rule.sizes.at(f);
      Expr v;
      if (const auto it = value.find(f); it != value.end()) {
        v = it->second;
      } else {
        v = Expr::range(u32(ranges.size()));
        ranges.push_back(size);
        exact = exact && size == 1;
      }
      index = index * size + v;
    }
    if (source[d].empty()) {  // a dimension of no factor: any index
      index = Expr::range(u32(ranges.size()));
      ranges.push_back(in[d]);
      exact = exact && in[d] == 1;
    }
    results.push_back(index);
  }
  IndexingMap map = build::map(out, std::move(results), ranges);
  if (!exact) map.mark_approximate("the factors of a Shardy sharding rule the output does not share");
  return map;
}

}  // namespace

bool has_sharding_rule(const OpContext& op) { return rule_text(op).has_value(); }

std::vector<MapSet> o2i_sharding_rule(const OpContext& op, std::size_t output) {
  const ShardingRule rule = checked_rule(op, *rule_text(op));
  const std::vector<std::int64_t> out = op.output_dims(output);
  std::vector<MapSet> sets(op.operand_count());
  for (std::size_t j = 0; j < op.operand_count(); ++j) {
    if (build::product(op.operand_dims(j)) == 0 || build::product(out) == 0) continue;
    sets[j].push_back(rule_map(rule, out, output, op.operand_dims(j), j));
  }
  return sets;
}

std::vector<MapSet> i2o_sharding_rule(const OpContext& op, std::size_t operand) {
  return maps_by_inverse(op, operand, o2i_sharding_rule);
}

}  // namespace hlo_index::indexing::detail
