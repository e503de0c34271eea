// `webnn-run generate`: greedy decoding with a decoder LLM artifact in the
// onnxruntime-genai layout (docs/LLM.md): inputs input_ids [B, seq],
// attention_mask [B, total] and position_ids [B, seq] (both optional),
// past_key_values.N.key/value [B, kvHeads, past, D]; outputs logits
// [B, seq, vocab] and present.N.key/value [B, kvHeads, past + seq, D]. One
// artifact with dynamic sequence dimensions runs the prefill (the whole
// prompt, empty past) and then one token per step. The KV cache is either
// one fixed-capacity buffer per cache that is both past and present (the
// present computed in place, ONNX Runtime's share-buffer mode: a step
// writes only its new rows), or two buffers per cache that swap roles each
// step (the present of one step read in place as the next step's past).
#include "Generate.h"
#include "LimitFlags.h"
#include "Profile.h"
#include "ThreadWait.h"
#include "Watchdog.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <memory>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "webnn/runtime.h"
#include "webnn/version.h"

namespace webnnrun {
namespace {

using Clock = std::chrono::steady_clock;

struct GenerateError {
  int exitCode;
  std::string message;
};

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::vector<int64_t> parseIds(const std::string &text) {
  std::vector<int64_t> ids;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception &) {
      used = 0;
    }
    if (used == 0 || used != item.size() || v < 0)
      throw GenerateError{2, "--prompt-ids: '" + item + "' is not a non-negative integer"};
    ids.push_back(v);
  }
  if (ids.empty()) throw GenerateError{2, "--prompt-ids: no token ids"};
  return ids;
}

// The model's LLM interface, found by the genai names.
struct LlmInterface {
  int inputIds = -1, attentionMask = -1, positionIds = -1, logits = -1;
  struct Cache {
    int past, present;
  };
  std::vector<Cache> caches;
};

LlmInterface findInterface(const webnn::Model &model) {
  LlmInterface io;
  io.inputIds = model.findInput("input_ids");
  io.attentionMask = model.findInput("attention_mask");
  io.positionIds = model.findInput("position_ids");
  io.logits = model.findOutput("logits");
  if (io.inputIds < 0 || io.logits < 0)
    throw GenerateError{1, "generate needs an input 'input_ids' and an output 'logits' (the onnxruntime-genai layout)"};
  const std::string prefix = "past_key_values.";
  for (size_t i = 0; i < model.inputs().size(); ++i) {
    const std::string &name = model.inputs()[i].name;
    if (int(i) == io.inputIds || int(i) == io.attentionMask || int(i) == io.positionIds) continue;
    if (name.rfind(prefix, 0) != 0)
      throw GenerateError{1, "input '" + name + "' is not part of the genai LLM interface"};
    std::string present = "present." + name.substr(prefix.size());
    int out = model.findOutput(present);
    if (out < 0) throw GenerateError{1, "input '" + name + "' has no matching output '" + present + "'"};
    const webnn::TensorInfo &in = model.inputs()[i];
    const webnn::TensorInfo &o = model.outputs()[size_t(out)];
    if (in.shape.size() != 4 || o.shape.size() != 4 || in.dtype != o.dtype || !in.isDynamic() ||
        in.dynamicDims[2].empty())
      throw GenerateError{1, "'" + name + "' must be [B, kvHeads, past, D] with a dynamic past length, of '" +
                                 present + "''s type"};
    io.caches.push_back({int(i), out});
  }
  const webnn::TensorInfo &ids = model.inputs()[size_t(io.inputIds)];
  if (ids.shape.size() != 2 || (ids.dtype != webnn::DataType::kInt64 && ids.dtype != webnn::DataType::kInt32))
    throw GenerateError{1, "'input_ids' must be int64 or int32 [batch, sequence]"};
  if (!ids.isDynamic() || ids.dynamicDims[1].empty())
    throw GenerateError{1, "'input_ids' has a static sequence length; compile with a dynamic one "
                           "(webnnc --dynamic-dim sequence_length=MAX ...)"};
  if (ids.dynamicDims[0].empty() ? ids.shape[0] != 1 : false)
    throw GenerateError{1, "generate runs batch 1; 'input_ids' has batch " + std::to_string(ids.shape[0])};
  const webnn::TensorInfo &logits = model.outputs()[size_t(io.logits)];
  if (logits.dtype != webnn::DataType::kFloat32 || logits.shape.size() != 3)
    throw GenerateError{1, "'logits' must be float32 [batch, sequence, vocab]"};
  return io;
}

// Integer tensor of `dtype` (int64 or int32) holding `values`.
std::vector<uint8_t> intTensor(webnn::DataType dtype, const std::vector<int64_t> &values) {
  std::vector<uint8_t> bytes;
  if (dtype == webnn::DataType::kInt64) {
    bytes.resize(values.size() * 8);
    std::memcpy(bytes.data(), values.data(), bytes.size());
  } else {
    std::vector<int32_t> v(values.begin(), values.end());
    bytes.resize(v.size() * 4);
    std::memcpy(bytes.data(), v.data(), bytes.size());
  }
  return bytes;
}

struct Result {
  std::vector<int64_t> generated;
  double prefillMs = 0;
  std::vector<double> decodeMs;
  bool sharedCache = false;
};

// `profileDecode`: time the nodes of the decode steps (not the prefill).
enum class KvMode { kAuto, kShared, kSwap };

Result generateOnce(webnn::Session &session, const webnn::Model &model, const LlmInterface &io,
                    const std::vector<int64_t> &prompt, int maxNewTokens, int64_t eosId, bool profileDecode,
                    KvMode mode) {
  Result r;
  const auto &ins = model.inputs();
  const webnn::TensorInfo &idsInfo = ins[size_t(io.inputIds)];
  int64_t maxSeq = idsInfo.shape[1];
  if (int64_t(prompt.size()) > maxSeq)
    throw GenerateError{1, "the prompt has " + std::to_string(prompt.size()) + " tokens; the artifact takes at most " +
                               std::to_string(maxSeq) + " per step"};
  int64_t maxPast = ins[size_t(io.caches.empty() ? io.inputIds : io.caches[0].past)].shape[2];
  if (!io.caches.empty() && int64_t(prompt.size()) + maxNewTokens - 1 > maxPast + 1)
    throw GenerateError{1, "prompt + new tokens need a past of " + std::to_string(prompt.size() + maxNewTokens - 2) +
                               " positions; the artifact's past is at most " + std::to_string(maxPast)};
  auto check = [](const webnn::Status &s) {  // only --timeout's watchdog cancels
    if (!s.isOk()) throw GenerateError{s.code() == webnn::StatusCode::kCancelled ? kTimedOutExitCode : 1, s.message()};
  };
  // A shared cache holds every position the last step attends to (one more
  // than the swapped caches' largest past).
  const int64_t capacity = int64_t(prompt.size()) + maxNewTokens - 1;
  if (mode == KvMode::kShared && capacity > maxPast)
    throw GenerateError{1, "--kv-cache shared: prompt + new tokens need " + std::to_string(capacity) +
                               " cached positions; the artifact's past is at most " + std::to_string(maxPast)};
  bool shared = !io.caches.empty() && mode != KvMode::kSwap && capacity <= maxPast;
  if (shared) {
    for (const auto &c : io.caches) {
      webnn::Status s = session.bindOutputInPlace(model.outputs()[size_t(c.present)].name, ins[size_t(c.past)].name);
      if (s.isOk()) continue;
      if (mode == KvMode::kShared) check(s);
      for (const auto &u : io.caches) check(session.bindOutput(model.outputs()[size_t(u.present)].name, nullptr, 0));
      shared = false;  // kAuto: the two-buffer cache
      break;
    }
  }
  // Each cache has two buffers of its largest present: a step writes its
  // present into one (a bound output) and reads its past from the other, in
  // place, so the cache is never copied between steps.
  struct AlignedFree {
    void operator()(void *p) const { std::free(p); }
  };
  std::vector<std::array<std::unique_ptr<uint8_t, AlignedFree>, 2>> buffers(io.caches.size());
  for (size_t i = 0; i < io.caches.size(); ++i) {
    const webnn::TensorInfo &present = model.outputs()[size_t(io.caches[i].present)];
    const webnn::TensorInfo &pastInfo = ins[size_t(io.caches[i].past)];
    webnn::Shape shape = pastInfo.shape;
    shape[2] = shared ? capacity : 0;  // shared: [B, kvHeads, capacity, D]; else empty for the prefill
    uint64_t sharedBytes = 0;
    if (!webnn::tensorByteSize(pastInfo.dtype, shape, &sharedBytes))
      throw GenerateError{1, "the KV cache of '" + present.name + "' is too large"};
    size_t bytes = size_t(((shared ? sharedBytes : present.byteSize) + 63) / 64 * 64);
    for (size_t k = 0; k < (shared ? 1u : 2u); ++k) {
      auto &b = buffers[i][k];
      b.reset(static_cast<uint8_t *>(std::aligned_alloc(64, std::max<size_t>(bytes, 64))));
      if (!b) throw GenerateError{1, "out of memory for the KV cache of '" + present.name + "'"};
      std::memset(b.get(), 0, bytes);
    }
    if (shared)
      check(session.setInput(pastInfo.name, buffers[i][0].get(), sharedBytes, shape));
    else
      check(session.setInput(pastInfo.name, buffers[i][1].get(), 0, shape));
  }
  r.sharedCache = shared;
  std::vector<int64_t> tokens = prompt;
  int64_t past = 0;
  for (int step = 0; step < maxNewTokens; ++step) {
    std::vector<int64_t> ids = step == 0 ? prompt : std::vector<int64_t>{tokens.back()};
    int64_t seq = int64_t(ids.size()), total = past + seq;
    auto bind = [&](int index, const std::vector<int64_t> &values, int64_t len) {
      const webnn::TensorInfo &info = ins[size_t(index)];
      std::vector<uint8_t> bytes = intTensor(info.dtype, values);
      check(session.copyInput(info.name, bytes.data(), bytes.size(), {1, len}));
    };
    bind(io.inputIds, ids, seq);
    if (io.attentionMask >= 0) bind(io.attentionMask, std::vector<int64_t>(size_t(total), 1), total);
    if (io.positionIds >= 0) {
      std::vector<int64_t> pos(static_cast<size_t>(seq));
      for (int64_t i = 0; i < seq; ++i) pos[size_t(i)] = past + i;
      bind(io.positionIds, pos, seq);
    }
    if (!shared)
      for (size_t i = 0; i < io.caches.size(); ++i)
        check(session.bindOutput(model.outputs()[size_t(io.caches[i].present)].name, buffers[i][step % 2].get(),
                                 model.outputs()[size_t(io.caches[i].present)].byteSize));
    if (step == 1 && profileDecode) session.enableProfiling(true);
    auto t0 = Clock::now();
    check(session.run());
    double ms = msSince(t0);
    (step == 0 ? r.prefillMs : r.decodeMs.emplace_back()) = ms;
    // Greedy: the most likely next token after the last position.
    const webnn::Shape &ls = session.outputShape(size_t(io.logits));
    const float *logits = static_cast<const float *>(session.outputData(size_t(io.logits)));
    int64_t vocab = ls[2];
    const float *last = logits + (ls[1] - 1) * vocab;
    int64_t next = std::max_element(last, last + vocab) - last;
    tokens.push_back(next);
    r.generated.push_back(next);
    if (next == eosId || step + 1 == maxNewTokens) break;  // no next step to feed
    // This step's present cache is the next step's past, read in place (a
    // shared cache already is).
    for (size_t i = 0; i < io.caches.size() && !shared; ++i) {
      const auto &c = io.caches[i];
      check(session.setInput(ins[size_t(c.past)].name, buffers[i][step % 2].get(),
                             session.outputBytes(size_t(c.present)), session.outputShape(size_t(c.present))));
    }
    past = total;
  }
  for (const auto &c : io.caches) check(session.bindOutput(model.outputs()[size_t(c.present)].name, nullptr, 0));
  return r;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

int runGenerate(int argc, char **argv) {
  std::string artifact, weights, promptText;
  int maxNewTokens = 16, threads = 1, warmup = 0;
  double timeout = 0;
  int64_t eosId = -1;
  bool json = false, profile = false;
  std::string kvCache = "auto";
  webnn::ThreadWait wait = webnn::ThreadWait::kDefault;
  webnn::Limits limits;
  CLI::App app{"Greedy generation with a decoder LLM artifact (onnxruntime-genai layout, dynamic sequence length)."};
  app.name("webnn-run generate");
  app.set_version_flag("--version", "webnn-run " WEBNN_VERSION_STRING);
  app.add_option("artifact", artifact, "Compiled artifact (.wnn)")->required();
  app.add_option("--weights", weights, "Weights file of a weightless artifact");
  app.add_option("--prompt-ids", promptText, "Prompt token ids, comma-separated")->required();
  app.add_option("--max-new-tokens", maxNewTokens, "Tokens to generate (>= 1)");
  app.add_option("--eos-id", eosId, "Stop after generating this token id");
  app.add_option("--threads,-t", threads, "Threads for kernels (>= 1)");
  addWaitOption(app, &wait);
  app.add_option("--warmup", warmup, "Untimed generations before the reported one (>= 0)");
  app.add_option("--kv-cache", kvCache,
                 "KV cache: 'shared' (past and present one fixed-capacity buffer, written in place), 'swap' (two "
                 "buffers per cache, swapped each step) or 'auto' (shared when the artifact allows it)")
      ->check(CLI::IsMember({"auto", "shared", "swap"}));
  app.add_flag("--json", json, "Print the tokens and timings as one JSON object");
  app.add_option("--timeout", timeout,
                 "Cancel the generations (warmup ones included) after this many seconds: one error line, exit 3");
  app.add_flag("--profile", profile, "Time every node of the decode steps: per op kind and the slowest nodes");
  addLimitFlags(app, &limits);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    std::cerr << "webnn-run: error: generate: " << e.what() << "\n";
    return 2;
  }
  try {
    if (maxNewTokens < 1 || threads < 1 || threads > webnn::kMaxThreads || warmup < 0 || !(timeout >= 0))
      throw GenerateError{2, "--max-new-tokens must be >= 1, --threads in [1, " + std::to_string(webnn::kMaxThreads) +
                                 "], --warmup and --timeout >= 0"};
    std::vector<int64_t> prompt = parseIds(promptText);
    webnn::LoadOptions lo;
    lo.weightsPath = weights;
    std::unique_ptr<webnn::Model> model;
    webnn::Status s = webnn::Model::load(artifact, lo, &model);
    if (!s.isOk()) throw GenerateError{1, s.message()};
    LlmInterface io = findInterface(*model);
    int64_t vocab = model->outputs()[size_t(io.logits)].shape[2];
    for (int64_t id : prompt)
      if (id >= vocab) throw GenerateError{1, "--prompt-ids: token " + std::to_string(id) + " is outside the vocabulary of " + std::to_string(vocab)};
    std::unique_ptr<webnn::Session> session;
    webnn::SessionOptions so;
    so.threads = threads;
    so.threadWait = wait;
    so.limits = limits;
    s = webnn::Session::create(*model, so, &session);
    if (!s.isOk()) throw GenerateError{1, s.message()};
    KvMode mode = kvCache == "shared" ? KvMode::kShared : kvCache == "swap" ? KvMode::kSwap : KvMode::kAuto;
    Watchdog watchdog(session.get(), timeout);
    Result r;
    try {
      for (int i = 0; i < warmup; ++i) generateOnce(*session, *model, io, prompt, maxNewTokens, eosId, false, mode);
      r = generateOnce(*session, *model, io, prompt, maxNewTokens, eosId, profile, mode);
    } catch (const GenerateError &e) {
      if (e.exitCode != kTimedOutExitCode) throw;
      throw GenerateError{e.exitCode, watchdog.message(webnn::Status(webnn::StatusCode::kCancelled, e.message))};
    }
    double decodeTotal = 0;
    for (double ms : r.decodeMs) decodeTotal += ms;
    double tokensPerS = decodeTotal > 0 ? 1000.0 * double(r.decodeMs.size()) / decodeTotal : 0;
    if (json) {
      nlohmann::json j;
      addBuildInfo(j);
      j["artifact"] = artifact;
      j["threads"] = session->threads();
      j["thread_wait"] = waitName(session->threadWait());
      j["prompt_ids"] = prompt;
      j["generated_ids"] = r.generated;
      j["prefill_tokens"] = prompt.size();
      j["prefill_ms"] = r.prefillMs;
      j["decode_steps"] = r.decodeMs.size();
      j["decode_ms"] = {{"median", median(r.decodeMs)}, {"total", decodeTotal}};
      j["decode_tokens_per_s"] = tokensPerS;
      j["kv_cache"] = r.sharedCache ? "shared" : "swap";
      if (profile) j["decode_profile"] = profileJson(*session);
      std::cout << j.dump() << "\n";
    } else {
      std::cout << "generated";
      for (int64_t t : r.generated) std::cout << " " << t;
      std::cout << "\n";
      std::printf("prefill %zu tokens: %.4g ms; decode %zu steps: %.4g tokens/s (median step %.4g ms), %d thread(s), "
                  "%s KV cache\n",
                  prompt.size(), r.prefillMs, r.decodeMs.size(), tokensPerS, median(r.decodeMs),
                  session->threads(), r.sharedCache ? "shared" : "swapped");
      if (profile) printProfile(profileJson(*session));
    }
    return 0;
  } catch (const GenerateError &e) {
    std::cerr << "webnn-run: error: " << e.message << "\n";
    return e.exitCode;
  } catch (const std::bad_alloc &) {
    std::cerr << "webnn-run: error: out of memory\n";
    return 1;
  }
}

}  // namespace webnnrun
