// The radar parameters of a take from its packets alone: S1-IF-ASD-PL-0007 issue 13 section 3.2.5
// (Tx ramp rate, start frequency, pulse length, PRI, SWST in units of the reference frequency; the
// range decimation codes of table 3.2-... giving the sampling rate), section 3.2.3 (the PVT record in
// sub-commutated words 1..22), and the Level-0 Data Decoding Package's first-sample time rank x PRI +
// SWST + 320 / (8 f_ref).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "sarfuse/error.hpp"
#include "sarfuse/sentinel1.hpp"

namespace sarfuse::sentinel1 {

namespace {

double signed_magnitude(std::uint16_t v) { return (v >> 15 ? 1.0 : -1.0) * static_cast<double>(v & 0x7fff); }

double word_double(const std::uint16_t* w) {
  std::uint64_t u = 0;
  for (int i = 0; i < 4; ++i) u = (u << 16) | w[i];
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}

float word_float(const std::uint16_t* w) {
  const std::uint32_t u = (std::uint32_t{w[0]} << 16) | w[1];
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// WGS84: the geocentric radius at the latitude of the position r (for the footprint's ground speed).
double earth_radius_below(double x, double y, double z) {
  constexpr double a = 6378137.0, b = 6356752.314245;
  const double lat = std::atan2(z, std::hypot(x, y));
  const double c = std::cos(lat), s = std::sin(lat);
  return std::sqrt((std::pow(a * a * c, 2) + std::pow(b * b * s, 2)) / (std::pow(a * c, 2) + std::pow(b * s, 2)));
}

// "FILE: packet N" of line l (a line filled for a missing packet named by its line).
std::string line_where(const DecodedLines& d, std::size_t l) {
  return d.source + (d.packet_index[l] == kMissingLine ? ": line " + std::to_string(l) + " (a missing packet)"
                                                        : ": packet " + std::to_string(d.packet_index[l]));
}

}  // namespace

double tx_ramp_rate_hz_per_s(const PacketHeader& h) {
  return signed_magnitude(h.tx_ramp_rate) * kReferenceFrequencyMHz * kReferenceFrequencyMHz / (1 << 21) * 1e12;
}
double tx_pulse_start_frequency_hz(const PacketHeader& h) {
  const double ramp_mhz_per_us = tx_ramp_rate_hz_per_s(h) * 1e-12;
  return (ramp_mhz_per_us / (4 * kReferenceFrequencyMHz) +
          signed_magnitude(h.tx_pulse_start_frequency) * kReferenceFrequencyMHz / (1 << 14)) * 1e6;
}
double tx_pulse_length_s(const PacketHeader& h) { return h.tx_pulse_length / kReferenceFrequencyMHz * 1e-6; }
double pri_s(const PacketHeader& h) { return h.pri / kReferenceFrequencyMHz * 1e-6; }
double swst_s(const PacketHeader& h) { return h.swst / kReferenceFrequencyMHz * 1e-6; }
double first_sample_time_s(const PacketHeader& h) {
  return h.rank * pri_s(h) + swst_s(h) + 320.0 / 8.0 / kReferenceFrequencyMHz * 1e-6;
}

double range_sampling_rate_hz(const PacketHeader& h, const std::string& where) {
  // Decimation code -> ratio of 4 f_ref (section 3.2.5.4); code 2 is not used.
  constexpr int num[12] = {3, 2, 0, 5, 4, 3, 1, 1, 3, 5, 3, 4};
  constexpr int den[12] = {4, 3, 1, 9, 9, 8, 3, 6, 7, 16, 26, 11};
  if (h.range_decimation >= 12 || num[h.range_decimation] == 0)
    throw Error(where + ": range_decimation " + std::to_string(h.range_decimation) + ": expected 0, 1 or 3..11");
  return 4.0 * kReferenceFrequencyMHz * 1e6 * num[h.range_decimation] / den[h.range_decimation];
}

double packet_time_s(const PacketHeader& h) { return h.coarse_time + (h.fine_time + 0.5) / 65536.0; }

std::vector<PvtRecord> pvt_records(const std::vector<PacketHeader>& headers) {
  std::vector<PvtRecord> out;
  std::uint16_t words[kPvtWords + 1] = {};
  int next = 1;  // the index the cycle expects next; a PVT record is words 1..22 in a row
  for (const PacketHeader& h : headers) {
    const int i = h.data_word_index;
    if (i == 1) next = 1;
    if (i != next || i > kPvtWords) {
      next = i == next ? next + 1 : 0;
      continue;
    }
    words[i] = h.data_word;
    ++next;
    if (i == kPvtWords) {
      PvtRecord r;
      r.x = word_double(&words[1]);
      r.y = word_double(&words[5]);
      r.z = word_double(&words[9]);
      r.vx = word_float(&words[13]);
      r.vy = word_float(&words[15]);
      r.vz = word_float(&words[17]);
      const std::uint64_t t = (std::uint64_t{words[19] & 0xffu} << 48) | (std::uint64_t{words[20]} << 32) |
                              (std::uint64_t{words[21]} << 16) | words[22];
      r.time_s = static_cast<double>(t >> 24) + static_cast<double>(t & 0xffffff) / 16777216.0;
      if (out.empty() || out.back().time_s != r.time_s) out.push_back(r);
      next = 0;
    }
  }
  return out;
}

std::vector<std::uint16_t> pvt_words(const PvtRecord& r) {
  std::vector<std::uint16_t> w(kPvtWords);
  auto put_double = [&](int at, double d) {
    std::uint64_t u;
    std::memcpy(&u, &d, 8);
    for (int i = 0; i < 4; ++i) w[at + i] = static_cast<std::uint16_t>(u >> (48 - 16 * i));
  };
  auto put_float = [&](int at, float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    w[at] = static_cast<std::uint16_t>(u >> 16);
    w[at + 1] = static_cast<std::uint16_t>(u & 0xffff);
  };
  put_double(0, r.x);
  put_double(4, r.y);
  put_double(8, r.z);
  put_float(12, r.vx);
  put_float(14, r.vy);
  put_float(16, r.vz);
  const double whole = std::floor(r.time_s);
  const std::uint64_t t = (static_cast<std::uint64_t>(whole) << 24) |
                          static_cast<std::uint64_t>(std::llround((r.time_s - whole) * 16777216.0) & 0xffffff);
  w[18] = static_cast<std::uint16_t>((t >> 48) & 0xff);
  w[19] = static_cast<std::uint16_t>(t >> 32);
  w[20] = static_cast<std::uint16_t>(t >> 16);
  w[21] = static_cast<std::uint16_t>(t);
  return w;
}

RadarParams radar_parameters(const DecodedLines& d) {
  const std::vector<PvtRecord> pvt = pvt_records(d.headers);
  if (pvt.empty())
    throw Error(d.source + ": no complete position-velocity record (sub-commutated words 1..22 in a row) in the take's " +
                std::to_string(d.lines) + " lines; needed for the platform velocity (or give an orbit file)");
  return radar_parameters(d, pvt);
}

RadarParams radar_parameters(const DecodedLines& d, const std::vector<PvtRecord>& pvt) {
  if (d.lines == 0) throw Error(d.source + ": no lines to take the radar parameters from");
  const PacketHeader& h = d.headers[d.lines / 2];
  const std::string where = line_where(d, d.lines / 2);
  RadarParams r;
  r.carrier_frequency_hz = kCarrierFrequencyHz;
  r.antenna_length_m = kAntennaLengthM;
  r.range_sampling_rate_hz = range_sampling_rate_hz(h, where);
  r.chirp_rate_hz_per_s = tx_ramp_rate_hz_per_s(h);
  r.pulse_duration_s = tx_pulse_length_s(h);
  if (h.pri == 0) throw Error(where + ": pri 0: expected a pulse repetition interval");
  r.prf_hz = 1.0 / pri_s(h);
  r.near_range_m = kSpeedOfLight / 2 * (d.first_sample_time_s > 0 ? d.first_sample_time_s : first_sample_time_s(h));
  for (std::size_t l = 0; l < d.lines; ++l) {
    const PacketHeader& g = d.headers[l];
    if (g.pri != h.pri || g.rank != h.rank || g.tx_ramp_rate != h.tx_ramp_rate || g.tx_pulse_length != h.tx_pulse_length ||
        g.range_decimation != h.range_decimation)
      throw Error(line_where(d, l) + ": pri, rank, tx_ramp_rate, tx_pulse_length or range_decimation differ from the take's middle line "
                  "(one radar configuration per take expected)");
  }
  // The platform from the state vector nearest the take's middle, moved along its velocity; the
  // effective velocity of a spherical local Earth, sqrt(Vs Vg), Vg = Vs R_earth / |r|.
  if (pvt.empty()) throw Error(d.source + ": no platform state vectors");
  const double mid = packet_time_s(h);
  const PvtRecord& p = *std::min_element(pvt.begin(), pvt.end(), [mid](const PvtRecord& a, const PvtRecord& b) {
    return std::fabs(a.time_s - mid) < std::fabs(b.time_s - mid);
  });
  const double dt = mid - p.time_s;
  if (std::fabs(dt) > 60)
    throw Error(d.source + ": the nearest state vector (GPS time " + std::to_string(p.time_s) + " s) is " +
                std::to_string(dt) + " s from the take's middle (" + std::to_string(mid) + " s): not this take's orbit");
  const double x = p.x + p.vx * dt, y = p.y + p.vy * dt, z = p.z + p.vz * dt;
  const double vs = std::sqrt(double{p.vx} * p.vx + double{p.vy} * p.vy + double{p.vz} * p.vz);
  const double radius = std::sqrt(x * x + y * y + z * z);
  if (!(radius > 6.3e6 && radius < 8.0e6 && vs > 6000 && vs < 9000))
    throw Error(d.source + ": position-velocity record at GPS time " + std::to_string(p.time_s) + ": |r| " +
                std::to_string(radius) + " m, |v| " + std::to_string(vs) + " m/s: not a low Earth orbit");
  r.effective_velocity_m_s = vs * std::sqrt(earth_radius_below(x, y, z) / radius);
  return r;
}

RadarParams radar_parameters(const std::string& product, const DecodeOptions& options, const std::string& orbit_path) {
  const DecodedLines d = index_lines(product, options);
  return orbit_path.empty() ? radar_parameters(d) : radar_parameters(d, read_orbit_file(orbit_path));
}

}  // namespace sarfuse::sentinel1
