// result_json.h — what attnlab-cli run prints (docs/cli.md), as JSON or as one CSV per matrix.
// Both are written as they are produced: a large result never exists twice in memory.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

#include "config.h"
#include "engine.h"

namespace attn {

// [SECTION] output limits
constexpr int max_json_indent = 16;                          // --indent 0..16 (-1: one line)
constexpr int64_t max_output_bytes = int64_t(1) << 30;       // the estimate below, JSON or CSV

// An upper estimate of the bytes `run` writes for a config with n queries and m keys (indent < 0:
// one line; csv: the CSV files together), and the check against max_output_bytes: "" or one line
// naming the field.
int64_t estimate_output_bytes(const Config& c, int n, int m, int indent, bool csv);
std::string check_output(const Config& c, int n, int m, int indent, bool csv);

// Every intermediate of the forward pass plus the effective config; indent < 0 = one line, else
// 0..max_json_indent. Writes to `out` as it goes; returns "" or the OS error of a failed write.
// A lean result (EngineOptions::keep_scores off) has no "scores" in its heads.
std::string write_result_json(const Result& r, const Config& c, std::FILE* out, int indent = -1);
// The same bytes, as a string (the page's window.attnlab.result()).
std::string result_to_json(const Result& r, const Config& c, int indent = -1);

// Writes tokens.csv, config.json, x.csv (x_source.csv for cross-attention), allowed.csv (the mask,
// shared by every head), head{h}_{q,k,v,scores,weights,output}.csv, concat.csv and output.csv into
// dir (created if missing). Returns "" or an error naming the file and the OS reason.
std::string write_result_csv(const Result& r, const Config& c, const std::string& dir);

}  // namespace attn
