// result_json.h — what attnlab-cli run prints (docs/cli.md), as JSON or as one CSV per matrix.
#pragma once
#include <string>

#include "config.h"
#include "engine.h"

namespace attn {

// Every intermediate of the forward pass plus the effective config; indent < 0 = one line.
std::string result_to_json(const Result& r, const Config& c, int indent = -1);

// Writes tokens.csv, x.csv, head{h}_{q,k,v,scores,allowed,weights,output}.csv, concat.csv, output.csv
// and config.json into dir (created if missing). Returns "" or an error naming the file.
std::string write_result_csv(const Result& r, const Config& c, const std::string& dir);

}  // namespace attn
