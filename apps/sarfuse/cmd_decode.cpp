#include <cstdio>
#include <iostream>

#include "commands.hpp"
#include "sarfuse/sentinel1.hpp"

namespace sarfuse::cli {

void add_decode(CLI::App& app) {
  auto* cmd = app.add_subcommand("decode", "decode a Sentinel-1 Level-0 product's packets into complex lines");
  static std::string product, out;
  static sentinel1::DecodeOptions o;
  cmd->add_option("product", product, "a Level-0 .SAFE folder or a measurement .dat file")->required();
  cmd->add_option("-o,--output", out, "lines (.npy, complex64, lines x samples); PATH.json: per-line headers")
      ->required();
  cmd->add_option("--signal", o.signal, "echo, noise, txcal (calibration) or all")->capture_default_str();
  cmd->add_option("--polarization", o.polarisation, "VV, VH, HH or HV (needed when the product has several)");
  cmd->add_option("--threads", o.threads, "threads (0: all cores)");
  cmd->callback([] {
    const sentinel1::DecodedLines d = sentinel1::decode_lines(product, o);
    sentinel1::write_decoded_lines(d, o, out);
    std::printf("wrote %s (%zu lines x %zu samples from %s; %zu packets missing) and %s.json; decoded in %.3f s\n",
                out.c_str(), d.lines, d.samples, d.source.c_str(), d.missing_packets, out.c_str(), d.decode_seconds);
  });
}

}  // namespace sarfuse::cli
