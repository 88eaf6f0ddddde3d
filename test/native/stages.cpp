// Hooks over the GPU stages' index logic, run on the host from the same __host__ __device__ headers
// the kernels use (cuda/msm/*.cuh) with integers in place of curve points, so the CI machine (no GPU,
// plain g++) checks recoding, the Alg. 4 buffer layout, the Alg. 5 search and the §3.4 schedule
// against the JS models in test/stages.test.ts.
#include <napi.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "args.hpp"
#include "curves/all.hpp"
#include "hooks.hpp"
#include "msm/accumulate.cuh"
#include "msm/aggregate.cuh"
#include "msm/plan.hpp"
#include "msm/recode.cuh"
#include "msm/reduce.cuh"

namespace msm::testing {
namespace {

using gpu::kMaxWindowBits;
using gpu::kMinWindowBits;

int window_arg(const Napi::CallbackInfo& cb, size_t i) {
  if (cb.Length() <= i || !cb[i].IsNumber()) fail(cb.Env(), "expected a window size c");
  const int c = cb[i].As<Napi::Number>().Int32Value();
  if (c < kMinWindowBits || c > kMaxWindowBits) fail(cb.Env(), "c must be in [2, 22]");
  return c;
}

// r − 1 of the scalar field of the curve named by argument 0, as 8 words, and r's bit length.
struct ScalarField {
  uint32_t rm1[gpu::kScalarWords] = {};
  int bits = 0;
};
ScalarField scalar_field(const Napi::CallbackInfo& cb) {
  if (cb.Length() < 1 || !cb[0].IsString()) fail(cb.Env(), "expected a curve");
  ScalarField f;
  visit_curve(curve_arg(cb.Env(), cb[0].As<Napi::String>()), [&](auto g) {
    using P = typename decltype(g)::scalar::params;
    for (int i = 0; i < gpu::kScalarWords; ++i) f.rm1[i] = i < 2 * P::N ? P::modulus::at32(i) : 0;
    f.rm1[0] -= 1;
    f.bits = int(P::BITS);
  });
  return f;
}

// recodeTable(c) → Uint32Array(2^c + 1): k̂ for every t = k_j + carry.
Napi::Value recode_table(const Napi::CallbackInfo& cb) {
  const int c = window_arg(cb, 0);
  std::vector<uint32_t> t(gpu::table_size(c));
  gpu::build_recode_table(c, t.data());
  return u32_array(cb.Env(), t);
}

// The recoding hooks' arguments (c, windows, scalars: Uint8Array(32·n)), and scalar i as 8 words.
struct RecodeArgs {
  int c;
  uint32_t windows;
  size_t n;
  const uint8_t* bytes;
  void scalar(size_t i, uint32_t* k) const {
    for (int w = 0; w < gpu::kScalarWords; ++w) {
      const uint8_t* b = bytes + 32 * i + 4 * w;
      k[w] = uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
    }
  }
};
RecodeArgs recode_args(const Napi::CallbackInfo& cb) {
  const int c = window_arg(cb, 0);
  const uint32_t windows = u32_arg(cb, 1, "windows");
  auto bytes = typed_arg<Napi::Uint8Array>(cb, 2, "scalars");
  if (bytes.ByteLength() % 32 || windows == 0 || windows > 256) fail(cb.Env(), "bad scalars or windows");
  return RecodeArgs{c, windows, bytes.ByteLength() / 32, bytes.Data()};
}

// recodeScalars(c, windows, scalars: Uint8Array(32·n)) → Uint32Array(n·windows), scalar-major k̂.
Napi::Value recode_scalars(const Napi::CallbackInfo& cb) {
  const RecodeArgs a = recode_args(cb);
  std::vector<uint32_t> table(gpu::table_size(a.c));
  gpu::build_recode_table(a.c, table.data());
  std::vector<uint32_t> out(a.n * a.windows);
  for (size_t i = 0; i < a.n; ++i) {
    uint32_t k[gpu::kScalarWords];
    a.scalar(i, k);
    gpu::recode_scalar(k, a.c, int(a.windows), table.data(), &out[i * a.windows]);
  }
  return u32_array(cb.Env(), out);
}

// recodeShared(c, windows, scalars: Uint8Array(32·n)) → { keys, values }: Uint32Array(n·windows) each,
// scalar-major, the (bucket, value) entries recode_kernel writes where the windows share one bucket
// set (recode.cuh shared_bucket, shared_value), through the kernel's loop (for_each_digit).
Napi::Value recode_shared(const Napi::CallbackInfo& cb) {
  const RecodeArgs a = recode_args(cb);
  const uint32_t W = a.windows;
  std::vector<uint32_t> keys(a.n * W), values(a.n * W);
  for (size_t i = 0; i < a.n; ++i) {
    uint32_t k[gpu::kScalarWords];
    a.scalar(i, k);
    gpu::for_each_digit(k, a.c, int(W), [&](int j, uint32_t t) {
      keys[i * W + j] = gpu::shared_bucket(t, a.c);
      values[i * W + j] = gpu::shared_value(t, uint32_t(i), j, a.c);
    });
  }
  Napi::Env env = cb.Env();
  auto o = Napi::Object::New(env);
  o.Set("keys", u32_array(env, keys));
  o.Set("values", u32_array(env, values));
  return o;
}

// recodeLevels(c, windows, scalars) → { keys, values }: the same where that set takes §3.1's odd
// digits over every level (recode.cuh levels_key, levels_value; the value's EXP field
// levels_value_shift(windows, c) − 1 bits), as recode_kernel's levels.
Napi::Value recode_levels(const Napi::CallbackInfo& cb) {
  const RecodeArgs a = recode_args(cb);
  const uint32_t W = a.windows;
  const int shift = gpu::levels_value_shift(int(W), a.c);
  std::vector<uint32_t> keys(a.n * W), values(a.n * W);
  for (size_t i = 0; i < a.n; ++i) {
    uint32_t k[gpu::kScalarWords];
    a.scalar(i, k);
    gpu::for_each_digit(k, a.c, int(W), [&](int j, uint32_t t) {
      keys[i * W + j] = gpu::levels_key(t, a.c);
      values[i * W + j] = gpu::levels_value(t, uint32_t(i), j, a.c, shift);
    });
  }
  Napi::Env env = cb.Env();
  auto o = Napi::Object::New(env);
  o.Set("keys", u32_array(env, keys));
  o.Set("values", u32_array(env, values));
  return o;
}

// numWindows(curve, c) and chooseWindow(curve, n, resident?, chunkThreads?, shared?, accumulation?,
// levels?): the dispatch layer's decisions.
Napi::Value num_windows(const Napi::CallbackInfo& cb) {
  const ScalarField f = scalar_field(cb);
  return Napi::Number::New(cb.Env(), gpu::num_windows(f.rm1, gpu::kScalarWords, f.bits, window_arg(cb, 1)));
}
// heavyGroups(count, grid, block) → aggregate.cuh heavy_groups: buckets a block of heavy_kernel sums at once.
Napi::Value heavy_groups(const Napi::CallbackInfo& cb) {
  const auto u = [&](size_t i) { return cb[i].As<Napi::Number>().Uint32Value(); };
  return Napi::Number::New(cb.Env(), gpu::heavy_groups(u(0), u(1), u(2)));
}
Napi::Value choose_window(const Napi::CallbackInfo& cb) {
  const ScalarField f = scalar_field(cb);
  const uint32_t n = u32_arg(cb, 1, "n");
  // Alg. 4's resident threads: an H100's 132 SMs × 3 blocks × 128 unless given; the chunk level's
  // count (PlanInput::chunk_threads) the same unless given.
  const uint32_t resident = cb.Length() > 2 ? u32_arg(cb, 2, "resident") : 132 * 3 * 128;
  const uint32_t chunk = cb.Length() > 3 ? u32_arg(cb, 3, "chunkThreads") : resident;
  const bool shared = cb.Length() > 4 && cb[4].ToBoolean();
  Accumulation mode = Accumulation::xyzz;
  if (cb.Length() > 5 && (!cb[5].IsString() || !accumulation_by_name(cb[5].As<Napi::String>().Utf8Value(), mode)))
    fail(cb.Env(), "unknown accumulation mode");
  const bool levels = cb.Length() > 6 && cb[6].ToBoolean();
  return Napi::Number::New(cb.Env(),
                           gpu::choose_window_bits(n, f.rm1, f.bits, resident, chunk, shared, mode, nullptr, levels));
}

// digitProfile(curve, c) → plan.cpp digit_profile: { D, topShare, topValues }, what the cost model
// assumes of the digits of uniform scalars below r.
Napi::Value digit_profile(const Napi::CallbackInfo& cb) {
  const ScalarField f = scalar_field(cb);
  const gpu::DigitProfile d = gpu::digit_profile(f.rm1, f.bits, window_arg(cb, 1));
  auto o = Napi::Object::New(cb.Env());
  o.Set("D", d.D);
  o.Set("topShare", d.top_share);
  o.Set("topValues", d.top_values);
  return o;
}

// Alg. 4 with integer "points": the run sums are sums of weights[value].
struct IntAcc {
  const uint64_t* weights;
  uint64_t* buffer;
  uint64_t acc = 0;
  void reset() { acc = 0; }
  void add(uint32_t v) { acc += weights[v]; }
  void store(uint32_t slot) { buffer[slot] = acc; }
};

// accumulate(keys: Uint32Array (sorted, one window), weights: BigUint64Array, T, c, place?)
//   → { first, offset, used, index, buffer } (index slots never written stay 0xffffffff).
// place: the window's place in a sort group (recode.cuh sort_key), set above every key's bucket
// bits and read through WindowKeys as the GPU kernel does; absent, the plain keys.
Napi::Value accumulate(const Napi::CallbackInfo& cb) {
  auto keys = typed_arg<Napi::Uint32Array>(cb, 0, "keys");
  auto weights = typed_arg<Napi::BigUint64Array>(cb, 1, "weights");
  const uint32_t T = u32_arg(cb, 2, "T");
  const int c = window_arg(cb, 3);
  const bool grouped = cb.Length() > 4 && !cb[4].IsUndefined();
  const uint32_t place = grouped ? u32_arg(cb, 4, "place") : 0;
  if (place > 63) fail(cb.Env(), "place must be at most 63");
  const uint32_t n = uint32_t(keys.ElementLength());
  if (weights.ElementLength() != n || T == 0) fail(cb.Env(), "keys and weights differ in length, or T = 0");
  const uint32_t M = 1u << (c - 2);
  for (uint32_t i = 0; i < n; ++i)
    if (keys[i] > M || (i && keys[i] < keys[i - 1])) fail(cb.Env(), "keys must be sorted and ≤ 2^(c−2)");
  std::vector<uint32_t> values(n);
  for (uint32_t i = 0; i < n; ++i) values[i] = i;
  const int log_m = gpu::log2_buckets(c);
  const uint32_t slots = gpu::buffer_slots(T, log_m);
  std::vector<uint32_t> offset(T, 0xffffffffu), used(T, 0xffffffffu), index(slots, 0xffffffffu);
  std::vector<uint64_t> buffer(slots, 0);
  std::vector<uint32_t> sort_keys(n);
  for (uint32_t i = 0; i < n; ++i) sort_keys[i] = gpu::sort_key(keys[i], int(place), int(place) + 1, log_m);
  const auto run = [&](const auto& k) {
    const uint32_t first = gpu::first_nonzero(k, n);
    for (uint32_t tid = 0; tid < T; ++tid) {
      IntAcc acc{weights.Data(), buffer.data()};
      gpu::accumulate_thread(tid, gpu::thread_span(first, n, T, tid), k, values.data(), offset.data(), index.data(),
                             used.data(), acc);
    }
    return first;
  };
  const uint32_t first = grouped ? run(gpu::WindowKeys{sort_keys.data(), gpu::bucket_mask(log_m)}) : run(keys.Data());
  Napi::Env env = cb.Env();
  auto o = Napi::Object::New(env);
  o.Set("first", double(first));
  o.Set("offset", u32_array(env, offset));
  o.Set("used", u32_array(env, used));
  o.Set("index", u32_array(env, index));
  o.Set("buffer", u64_array(env, buffer));
  return o;
}

// Alg. 4 into the buckets (accumulate_thread_direct) with integer "points", checking as it goes that
// no bucket or slot is written twice in a piece and no unwritten slot is read.
struct IntDirectAcc {
  const uint64_t* weights;
  uint64_t* buckets;
  uint64_t* buffer;
  std::vector<uint8_t>* bucket_written;
  std::vector<uint8_t>* slot_written;
  bool later;
  uint64_t acc = 0;
  bool bad = false;
  void begin(uint32_t b, bool head) { acc = head || !later ? 0 : buckets[b - 1]; }
  void add(uint32_t v) { acc += weights[v]; }
  void bucket(uint32_t b) {
    bad |= b == 0 || b > bucket_written->size() || (*bucket_written)[b - 1]++ != 0;
    if (!bad) buckets[b - 1] = acc;
  }
  void piece(uint32_t slot) {
    bad |= slot >= slot_written->size() || (*slot_written)[slot]++ != 0;
    if (!bad) buffer[slot] = acc;
  }
};

// The block path (aggregate.cu heavy_kernel) on integers, for a bucket whose first thread is t0 and
// whose pieces threads [t0, t1) hold: its heavy_parts parts, each summed by `stride` threads taking
// every stride-th thread's piece and, with more than one part, written over the part's first slot
// (kept beside `buffer`, which stays as it was); then the parts' sums added. The parts run one after
// another, so a part that read a slot an earlier part overwrote, or wrote over a piece a later one
// reads, counts a sum twice. read(slot) sees every slot a part reads.
template <class View, class Read>
uint64_t heavy_sum(const View& v, uint32_t t0, uint32_t t1, uint32_t stride, uint32_t most, const uint64_t* buffer,
                   size_t slots, Read&& read) {
  std::unordered_map<uint32_t, uint64_t> written;
  const auto at = [&](uint32_t slot) -> uint64_t {
    const auto it = written.find(slot);
    return it != written.end() ? it->second : slot < slots ? buffer[slot] : 0;
  };
  const uint32_t q = gpu::heavy_parts(t0, t1, most);
  for (uint32_t p = 0; p < q; ++p) {
    const gpu::PartRange r = gpu::heavy_part(t0, t1, q, p);
    uint64_t sum = 0;
    for (uint32_t k = 0; k < stride; ++k)
      gpu::for_each_piece(v, t0, r.from, r.to, k, stride, [&](uint32_t slot) {
        read(slot);
        sum += at(slot);
      });
    if (q == 1) return sum;
    written[gpu::piece_slot(v, t0, r.from)] = sum;
  }
  uint64_t total = 0;
  for (uint32_t p = 0; p < q; ++p) total += at(gpu::piece_slot(v, t0, gpu::heavy_part(t0, t1, q, p).from));
  return total;
}

// accumulateDirect(keys (sorted, one window), weights, T, c, stride, parts, old?, place?) → {
// buckets, pieces, heavy, heavyPieces }: Alg. 4 writing whole runs to their buckets and the rest to
// two slots per thread, then the aggregation of aggregate.cuh's DirectView (split buckets of more
// than heavyPieces pieces by the block path: heavy_sum, in at most `parts` parts; the others one
// after another). old: the buckets of an earlier piece, which this one adds onto (Workspace::later);
// absent, the buckets start at O (launch_clear_buckets). pieces[p]: t1 − t0 of split bucket p+1 (0
// if not split); heavy: the buckets the block path took.
Napi::Value accumulate_direct(const Napi::CallbackInfo& cb) {
  auto keys = typed_arg<Napi::Uint32Array>(cb, 0, "keys");
  auto weights = typed_arg<Napi::BigUint64Array>(cb, 1, "weights");
  const uint32_t T = u32_arg(cb, 2, "T");
  const int c = window_arg(cb, 3);
  const uint32_t stride = u32_arg(cb, 4, "stride"), parts = u32_arg(cb, 5, "parts");
  const uint32_t n = uint32_t(keys.ElementLength());
  const uint32_t M = 1u << (c - 2);
  const bool later = cb.Length() > 6 && !cb[6].IsUndefined();
  const bool grouped = cb.Length() > 7 && !cb[7].IsUndefined();
  const uint32_t place = grouped ? u32_arg(cb, 7, "place") : 0;
  if (weights.ElementLength() != n || T == 0 || stride == 0 || parts == 0 || place > 63) fail(cb.Env(), "bad arguments");
  for (uint32_t i = 0; i < n; ++i)
    if (keys[i] > M || (i && keys[i] < keys[i - 1])) fail(cb.Env(), "keys must be sorted and ≤ 2^(c−2)");
  std::vector<uint64_t> buckets(M, 0);
  if (later) {
    auto old = typed_arg<Napi::BigUint64Array>(cb, 6, "old");
    if (old.ElementLength() != M) fail(cb.Env(), "old must hold 2^(c−2) buckets");
    for (uint32_t p = 0; p < M; ++p) buckets[p] = old[p];
  }
  std::vector<uint32_t> values(n);
  for (uint32_t i = 0; i < n; ++i) values[i] = i;
  const int log_m = gpu::log2_buckets(c);
  const uint32_t slots = gpu::buffer_slots(T, log_m);
  std::vector<uint64_t> buffer(slots, 0);
  std::vector<uint8_t> bucket_written(M, 0), slot_written(slots, 0);
  std::vector<uint32_t> sort_keys(n);
  for (uint32_t i = 0; i < n; ++i) sort_keys[i] = gpu::sort_key(keys[i], int(place), int(place) + 1, log_m);
  std::vector<uint32_t> pieces(M, 0), heavy, lead(T, 0x12345678u), split(T, 0x12345678u);
  bool bad = false;
  const auto run = [&](const auto& k) {
    const uint32_t first = gpu::first_nonzero(k, n);
    for (uint32_t tid = 0; tid < T; ++tid) {
      IntDirectAcc acc{weights.Data(), buckets.data(), buffer.data(), &bucket_written, &slot_written, later};
      gpu::accumulate_thread_direct(tid, gpu::thread_span(first, n, T, tid), k, values.data(), first, n, lead.data(),
                                    split.data(), acc);
      bad |= acc.bad;
    }
    const gpu::DirectView v{lead.data(), split.data(), T};
    for (uint32_t t = 0; t < T && !bad; ++t) {
      const uint32_t b = split[t];
      if (b == 0) continue;
      bad |= b > M || bucket_written[b - 1] != 0 || pieces[b - 1] != 0;
      if (bad) break;
      const uint32_t t1 = gpu::split_end(v, t, b);
      pieces[b - 1] = t1 - t;
      const bool block = t1 - t > gpu::kHeavyPieces;
      if (block) heavy.push_back(b - 1);
      const auto read = [&](uint32_t slot) { bad |= slot >= slots || !slot_written[slot]; };
      if (block) {
        buckets[b - 1] = heavy_sum(v, t, t1, stride, parts, buffer.data(), slots, read);
      } else {
        uint64_t sum = 0;
        gpu::for_each_piece(v, t, t, t1, 0, 1, [&](uint32_t slot) {
          read(slot);
          if (!bad) sum += buffer[slot];
        });
        buckets[b - 1] = sum;
      }
    }
  };
  if (grouped) run(gpu::WindowKeys{sort_keys.data(), gpu::bucket_mask(log_m)});
  else run(static_cast<const uint32_t*>(keys.Data()));
  if (bad) fail(cb.Env(), "accumulateDirect: a bucket or slot written twice, or an unwritten slot read");
  Napi::Env env = cb.Env();
  auto o = Napi::Object::New(env);
  o.Set("buckets", u64_array(env, buckets));
  o.Set("pieces", u32_array(env, pieces));
  o.Set("heavy", u32_array(env, heavy));
  o.Set("heavyPieces", Napi::Number::New(env, gpu::kHeavyPieces));
  o.Set("lead", u32_array(env, lead));
  return o;
}

// aggregate(offset, used, index, buffer, c, stride, parts, start?) → { buckets, block, pieces,
// queued, heavyPieces }: the homogeneous mode's Alg. 5 as aggregate.cu runs it: each thread's first
// pieces (for_each_first_piece) into the buckets, from O or, with `start` (a later piece of a call),
// added onto those values; the buckets it queues summed by the block path (heavy_sum: at most `parts`
// parts, `stride` threads each). block[p]: bucket p's pieces summed by the block path whichever path
// took it, for a bucket at its first thread's last run (the only ones the block path can be handed),
// else its one run (0 without entries); pieces[p] = t1 − t0, the threads holding it; queued: the
// buckets handed to the block path, in thread order.
Napi::Value aggregate(const Napi::CallbackInfo& cb) {
  auto offset = typed_arg<Napi::Uint32Array>(cb, 0, "offset");
  auto used = typed_arg<Napi::Uint32Array>(cb, 1, "used");
  auto index = typed_arg<Napi::Uint32Array>(cb, 2, "index");
  auto buffer = typed_arg<Napi::BigUint64Array>(cb, 3, "buffer");
  const int c = window_arg(cb, 4);
  const uint32_t stride = u32_arg(cb, 5, "stride"), parts = u32_arg(cb, 6, "parts");
  const uint32_t T = uint32_t(offset.ElementLength()), M = 1u << (c - 2);
  if (used.ElementLength() != T || index.ElementLength() != gpu::buffer_slots(T, gpu::log2_buckets(c)) ||
      buffer.ElementLength() != index.ElementLength() || stride == 0 || parts == 0)
    fail(cb.Env(), "inconsistent buffer arrays");
  const bool later = cb.Length() > 7 && !cb[7].IsUndefined();
  std::vector<uint64_t> buckets(M, 0), block(M, 0);
  if (later) {
    auto start = typed_arg<Napi::BigUint64Array>(cb, 7, "start");
    if (start.ElementLength() != M) fail(cb.Env(), "start must hold 2^(c−2) buckets");
    for (uint32_t p = 0; p < M; ++p) buckets[p] = start[p];
  }
  const gpu::BufferView v{offset.Data(), index.Data(), used.Data(), T};
  std::vector<uint32_t> pieces(M, 0), queued;
  auto block_sum = [&](uint32_t t0, uint32_t t1) {
    return heavy_sum(v, t0, t1, stride, parts, buffer.Data(), buffer.ElementLength(), [](uint32_t) {});
  };
  auto named = [&](uint32_t b, uint32_t t0, uint32_t t1, uint32_t slot) {
    if (pieces[b - 1]) fail(cb.Env(), "bucket " + std::to_string(b) + " summed twice");
    pieces[b - 1] = t1 - t0;
    block[b - 1] = slot == v.tail(t0) ? block_sum(t0, t1) : buffer[slot];
  };
  for (uint32_t t = 0; t < T; ++t)
    gpu::for_each_first_piece(
        v, t,
        [&](uint32_t b, uint32_t slot, uint32_t t1) {
          uint64_t acc = buffer[slot];
          for (uint32_t x = t + 1; x < t1; ++x) acc += buffer[v.head(x)];
          buckets[b - 1] = later ? buckets[b - 1] + acc : acc;
          named(b, t, t1, slot);
        },
        [&](uint32_t b, uint32_t t1) {
          queued.push_back(b - 1);
          named(b, t, t1, v.tail(t));
          buckets[b - 1] = later ? buckets[b - 1] + block[b - 1] : block[b - 1];
        });
  Napi::Env env = cb.Env();
  auto o = Napi::Object::New(env);
  o.Set("buckets", u64_array(env, buckets));
  o.Set("block", u64_array(env, block));
  o.Set("pieces", u32_array(env, pieces));
  o.Set("queued", u32_array(env, queued));
  o.Set("heavyPieces", Napi::Number::New(env, gpu::kHeavyPieces));
  return o;
}

// reduceSchedule(c) → { layered: Uint32Array, tree: Uint32Array }: per round, every task's
// (dst, src), flattened as [round, dst, src] triples.
Napi::Value reduce_schedule(const Napi::CallbackInfo& cb) {
  const int c = window_arg(cb, 0);
  const int log_m = gpu::log2_buckets(c);
  std::vector<uint32_t> layered, tree;
  for (int r = 1; r <= log_m; ++r) {
    for (uint32_t t = 0; t < gpu::layered_tasks(log_m); ++t) {
      const gpu::Task k = gpu::layered_task(log_m, r, t);
      layered.insert(layered.end(), {uint32_t(r), k.dst, k.src});
    }
    for (uint32_t t = 0; t < gpu::tree_tasks(log_m, r); ++t) {
      const gpu::Task k = gpu::tree_task(r, t);
      tree.insert(tree.end(), {uint32_t(r), k.dst, k.src});
    }
  }
  Napi::Env env = cb.Env();
  auto o = Napi::Object::New(env);
  o.Set("layered", u32_array(env, layered));
  o.Set("tree", u32_array(env, tree));
  return o;
}

// The integers mod 2^64 as the chunk level's point type (reduce.cuh chunk_sums, window_sum).
struct IntPoint {
  uint64_t v = 0;
  IntPoint add(const IntPoint& o) const { return {v + o.v}; }
  IntPoint dbl() const { return {2 * v}; }
  IntPoint operator-() const { return {0 - v}; }
};

// reduceIntegers(c, buckets: BigUint64Array(M), reverse, l = 0, b = 0, shared = false) → { suffix, bhat1,
// total, q }: the reduction's sequence on integers mod 2^64, as reduce_kernel runs it, for M = 2^(c−2)
// odd-digit buckets (Q = Σ (2p+1)·B_p) or, shared, M = 2^(c−1) plain ones (Q = Σ (p+1)·B_p): for
// l > 0 the chunk level (chunk_sums per chunk of 2^l buckets), then on the M/2^l chunk sums (or the
// buckets) the layered rounds, B̂_1 saved (then O at position 0 after a chunk level), the tree
// (also over the T_k), and Q = window_sum. Rounds 1 … b of each phase run group by group
// (reduce.cuh local_rounds: all of a group's rounds before the next group's, as one block runs
// them), the rest round by round; groups and tasks in order or in reverse (a group must touch only
// its own positions, a round's tasks must be independent). suffix and bhat1 are those of the points
// the layered rounds ran on, total the tree's (Σ_{k ≥ 1} B̂_k after a chunk level).
Napi::Value reduce_integers(const Napi::CallbackInfo& cb) {
  const int c = window_arg(cb, 0);
  auto in = typed_arg<Napi::BigUint64Array>(cb, 1, "buckets");
  const bool reverse = cb.Length() > 2 && cb[2].ToBoolean();
  const int l = cb.Length() > 3 ? int(u32_arg(cb, 3, "l")) : 0;
  const int b = cb.Length() > 4 ? int(u32_arg(cb, 4, "b")) : 0;
  const bool shared = cb.Length() > 5 && cb[5].ToBoolean();
  const int log_m = gpu::log2_buckets(c, shared);
  if (l > log_m) fail(cb.Env(), "l must be at most log2 M");
  if (b > log_m - l) fail(cb.Env(), "b must be at most log2 M − l");
  const uint32_t M = 1u << log_m;
  if (in.ElementLength() != M) fail(cb.Env(), "expected 2^(c−2) buckets (2^(c−1) shared)");
  std::vector<IntPoint> B(M), T;
  for (uint32_t p = 0; p < M; ++p) B[p].v = in.Data()[p];
  const int log_k = log_m - l;
  const uint32_t K = 1u << log_k;
  if (l > 0) {
    std::vector<IntPoint> R(K);
    T.resize(K);
    for (uint32_t k = 0; k < K; ++k) gpu::chunk_sums(B.data() + (size_t(k) << l), l, &R[k], &T[k]);
    B = R;
  }
  auto order = [&](uint32_t count, uint32_t i) { return reverse ? count - 1 - i : i; };
  auto run = [&](std::vector<IntPoint>& X, uint32_t count, auto task) {
    for (uint32_t i = 0; i < count; ++i) {
      const gpu::Task k = task(order(count, i));
      X[k.dst] = X[k.dst].add(X[k.src]);
    }
  };
  const uint32_t lanes = b > 0 ? 1u << (b - 1) : 1u, groups = K >> b;
  for (uint32_t gi = 0; gi < (b > 0 ? groups : 0); ++gi) {
    const uint32_t g = order(groups, gi);
    for (int r = 1; r <= b; ++r)
      run(B, lanes, [&](uint32_t i) { return gpu::layered_task(log_k, r, g * lanes + i); });
  }
  for (int r = b + 1; r <= log_k; ++r)
    run(B, gpu::layered_tasks(log_k), [&](uint32_t t) { return gpu::layered_task(log_k, r, t); });
  std::vector<uint64_t> suffix(K);
  for (uint32_t p = 0; p < K; ++p) suffix[p] = B[p].v;
  IntPoint bhat1;
  for (uint32_t gi = 0; gi < groups; ++gi) {
    const uint32_t g = order(groups, gi);
    if (g == 0) {
      bhat1 = B[0];
      if (gpu::tree_drops_first(l)) B[0] = IntPoint{};
    }
    for (int r = 1; r <= b; ++r) {
      const uint32_t active = [&] {
        uint32_t n = 0;
        while (n < lanes && gpu::tree_local_active(b, r, n)) ++n;
        return n;
      }();
      run(B, active, [&](uint32_t i) { return gpu::tree_local_task(b, r, g, i); });
      if (l > 0) run(T, active, [&](uint32_t i) { return gpu::tree_local_task(b, r, g, i); });
    }
  }
  for (int r = b + 1; r <= log_k; ++r) {
    run(B, gpu::tree_tasks(log_k, r), [&](uint32_t t) { return gpu::tree_task(r, t); });
    if (l > 0) run(T, gpu::tree_tasks(log_k, r), [&](uint32_t t) { return gpu::tree_task(r, t); });
  }
  Napi::Env env = cb.Env();
  auto o = Napi::Object::New(env);
  o.Set("suffix", u64_array(env, suffix));
  o.Set("bhat1", Napi::BigInt::New(env, bhat1.v));
  o.Set("total", Napi::BigInt::New(env, B[0].v));
  o.Set("q", Napi::BigInt::New(env, gpu::window_sum(B[0], bhat1, l, !shared, l > 0 ? &T[0] : nullptr).v));
  return o;
}

// bucketWeights(c, shared) → Σ_p (a·p + 1) over the window's positions (reduce.cuh bucket_weights):
// the multiple of R in each window sum of the constant-time mode, whose buckets all hold R once.
Napi::Value bucket_weights_of(const Napi::CallbackInfo& cb) {
  const int c = window_arg(cb, 0);
  const bool shared = cb.Length() > 1 && cb[1].ToBoolean();
  return Napi::BigInt::New(cb.Env(), gpu::bucket_weights(gpu::log2_buckets(c, shared), !shared));
}

}  // namespace

void register_stages(Napi::Object t) {
  Napi::Env env = t.Env();
  t.Set("recodeTable", Napi::Function::New(env, recode_table, "recodeTable"));
  t.Set("recodeScalars", Napi::Function::New(env, recode_scalars, "recodeScalars"));
  t.Set("recodeShared", Napi::Function::New(env, recode_shared, "recodeShared"));
  t.Set("recodeLevels", Napi::Function::New(env, recode_levels, "recodeLevels"));
  t.Set("numWindows", Napi::Function::New(env, num_windows, "numWindows"));
  t.Set("chooseWindow", Napi::Function::New(env, choose_window, "chooseWindow"));
  t.Set("digitProfile", Napi::Function::New(env, digit_profile, "digitProfile"));
  t.Set("accumulate", Napi::Function::New(env, accumulate, "accumulate"));
  t.Set("aggregate", Napi::Function::New(env, aggregate, "aggregate"));
  t.Set("heavyGroups", Napi::Function::New(env, heavy_groups, "heavyGroups"));
  t.Set("accumulateDirect", Napi::Function::New(env, accumulate_direct, "accumulateDirect"));
  t.Set("reduceSchedule", Napi::Function::New(env, reduce_schedule, "reduceSchedule"));
  t.Set("reduceIntegers", Napi::Function::New(env, reduce_integers, "reduceIntegers"));
  t.Set("bucketWeights", Napi::Function::New(env, bucket_weights_of, "bucketWeights"));
}

}  // namespace msm::testing
