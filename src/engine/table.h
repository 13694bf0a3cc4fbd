// table.h — what the registration tables share. Each concept the lab can be extended with is one
// array of entries (positional encodings, mask kinds, hand-made heads, tasks; in the UI the views and
// the side panels), each entry with the `name` a config or a script uses and, where code names the
// values, an enum whose value i is entry i.
#pragma once
#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>

namespace attn {

// Whether `table` lists one entry per value of its enum, in the enum's order (entry i is value i, and
// Enum::count entries), so it can be indexed by the value: for a static_assert beside each table.
template <class Entry, size_t N, class Enum>
constexpr bool in_enum_order(const Entry (&table)[N], Enum Entry::*value) {
  for (size_t i = 0; i < N; ++i)
    if (table[i].*value != (Enum)i) return false;
  return N == (size_t)Enum::count;
}

// The entry called `name`, nullptr if none is.
template <class Table>
auto find_named(const Table& table, std::string_view name) -> decltype(&*std::begin(table)) {
  for (const auto& entry : table)
    if (name == entry.name) return &entry;
  return nullptr;
}

// Every entry's name in the table's order, for messages: a, b, c — or with quote "\"": "a", "b", "c".
template <class Table>
std::string names_of(const Table& table, std::string_view quote = "") {
  std::string out;
  for (const auto& entry : table) {
    if (!out.empty()) out += ", ";
    out.append(quote).append(entry.name).append(quote);
  }
  return out;
}

}  // namespace attn
