// The measured ceilings of one machine (`tessera probe`): memory bandwidths of the CPU and,
// when there is one, the GPU and its links. Saved as JSON in the cache directory, one file
// per machine (host name, hardware threads, GPU), and re-used until probed again.
#pragma once
#include <optional>
#include <string>

namespace tessera::model {

struct Ceilings {
  std::string machine;         // the key: host, hardware threads, GPU name
  std::string probed_at;       // UTC time of the probe
  // CPU
  std::string cpu_model;
  unsigned cpu_threads = 0;    // hardware threads
  double cpu_llc_bytes = 0;    // last-level cache (0: unknown)
  double cpu_read_gbps = 0;    // read-only scan, all hardware threads
  double cpu_read_1t_gbps = 0; // read-only scan, one thread
  double cpu_copy_gbps = 0;    // memcpy, all threads (read + write bytes counted)
  double cpu_buffer_mib = 0;   // probe buffer size
  // GPU (has_gpu false: probed without a usable GPU)
  bool has_gpu = false;
  std::string gpu_note;        // why there is no GPU figure
  std::string gpu_name;
  double gpu_l2_bytes = 0;
  double gpu_peak_gbps = 0;    // from memory clock and bus width (theoretical)
  double gpu_read_gbps = 0;    // device memory, read-only kernel
  double gpu_copy_gbps = 0;    // device memory, copy kernel (read + write counted)
  double h2d_pinned_gbps = 0, d2h_pinned_gbps = 0;
  double h2d_pageable_gbps = 0, d2h_pageable_gbps = 0;
  double zero_copy_gbps = 0;   // kernel reading pinned host memory
  double gpu_buffer_mib = 0;

  // The CPU bandwidth a pipeline on `threads` workers can draw: min(all threads,
  // threads x one thread); 0 threads means all.
  double CpuBandwidth(unsigned threads) const;
  std::string ToJson() const;
  static Ceilings FromJson(const std::string& text, const std::string& what);
  // Human-readable table (tessera probe's output).
  std::string ToText() const;
};

// "host-16t-NVIDIA_H100_80GB_HBM3" or "host-2t-nogpu": the key a probe is saved under.
std::string MachineKey(const std::string& gpu_name);
// $TESSERA_PROBE_DIR, else $XDG_CACHE_HOME/tessera, else ~/.cache/tessera.
std::string ProbeDirectory();
// ProbeDirectory()/probe-<key>.json
std::string ProbePath(const std::string& key);
// The saved ceilings of this machine, if any (a malformed file is reported and ignored).
std::optional<Ceilings> LoadCeilings(const std::string& key);
// Writes them to ProbePath(c.machine); returns the path.
std::string SaveCeilings(const Ceilings& c);

}  // namespace tessera::model
