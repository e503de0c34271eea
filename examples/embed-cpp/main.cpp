// An app embedding the webnn runtime through its C++ API: one Model shared by
// two threads, each with its own Session (a session serves one thread at a
// time; docs/EMBEDDING.md). The input lives in the app's 64-byte aligned
// memory, which the sessions read in place; the first output is written as
// .npy. Errors are webnn::Status values, never exceptions.
//
//   embed-cpp MODEL.wnn INPUT.npy OUTPUT.npy
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include <webnn/npy.h>
#include <webnn/runtime.h>
#include <webnn/version.h>

namespace {

int fail(const char *what, const webnn::Status &s) {
  std::fprintf(stderr, "embed-cpp: %s: %s\n", what, s.message().c_str());
  return 1;
}

struct FreeDeleter {
  void operator()(void *p) const { std::free(p); }
};

}  // namespace

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: embed-cpp MODEL.wnn INPUT.npy OUTPUT.npy  (webnn %s)\n", WEBNN_VERSION_STRING);
    return 2;
  }
  std::unique_ptr<webnn::Model> model;
  if (webnn::Status s = webnn::Model::load(argv[1], {}, &model); !s) return fail("load", s);
  webnn::npy::Array x;
  if (webnn::Status s = webnn::npy::read(argv[2], &x); !s) return fail("input", s);
  if (model->inputs().empty() || model->outputs().empty())
    return fail("load", webnn::invalidArgument("the model needs an input and an output"));
  const webnn::TensorInfo &in = model->inputs()[0];
  if (x.dtype != in.dtype)
    return fail("input", webnn::invalidArgument(std::string(argv[2]) + ": " +
                                                std::string(webnn::dataTypeName(x.dtype)) + ", input '" + in.name +
                                                "' takes " + std::string(webnn::dataTypeName(in.dtype))));
  std::unique_ptr<void, FreeDeleter> aligned(std::aligned_alloc(64, (x.data.size() / 64 + 1) * 64));
  if (!aligned) return fail("input", webnn::Status(webnn::StatusCode::kOutOfMemory, "out of memory"));
  std::memcpy(aligned.get(), x.data.data(), x.data.size());

  // Two sessions on two threads over the one model; each binds the shared,
  // read-only input without a copy.
  std::unique_ptr<webnn::Session> sessions[2];
  webnn::Status status[2];
  for (auto &session : sessions)
    if (webnn::Status s = webnn::Session::create(*model, {/*threads=*/1}, &session); !s) return fail("session", s);
  std::thread worker([&] {
    status[1] = sessions[1]->setInput(in.name, aligned.get(), x.data.size(), x.shape);
    if (status[1]) status[1] = sessions[1]->run();
  });
  status[0] = sessions[0]->setInput(in.name, aligned.get(), x.data.size(), x.shape);
  if (status[0]) status[0] = sessions[0]->run();
  worker.join();
  for (const webnn::Status &s : status)
    if (!s) return fail("run", s);

  const webnn::TensorInfo &out = model->outputs()[0];
  const void *y[2];
  size_t bytes[2];
  for (int i = 0; i < 2; ++i)
    if (webnn::Status s = sessions[i]->output(out.name, &y[i], &bytes[i]); !s) return fail("output", s);
  if (bytes[0] != bytes[1] || std::memcmp(y[0], y[1], bytes[0]) != 0)
    return fail("run", webnn::Status(webnn::StatusCode::kInternal, "the two sessions disagree"));
  if (webnn::Status s = webnn::npy::write(argv[3], out.dtype, sessions[0]->outputShape(0), y[0], bytes[0]); !s)
    return fail("output", s);
  std::printf("%s: %s %s -> %s\n", out.name.c_str(), std::string(webnn::dataTypeName(out.dtype)).c_str(),
              webnn::shapeToString(sessions[0]->outputShape(0)).c_str(), argv[3]);
  return 0;
}
