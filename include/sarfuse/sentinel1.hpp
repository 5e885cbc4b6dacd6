// sarfuse: Sentinel-1 Level-0 raw data. The Space Packets of a measurement file (.dat) or of a .SAFE
// product, every header field, and the decoding of the user data (bypass, BAQ 3/4/5, FDBAQ) into
// complex samples; and our own encoder of valid packets (tests, benchmarks). Layouts and tables:
// "Sentinel-1 SAR Space Packet Protocol Data Unit", S1-IF-ASD-PL-0007 issue 13 (Airbus DS for ESA).
#pragma once
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sarfuse/image.hpp"
#include "sarfuse/io.hpp"
#include "sarfuse/params.hpp"

namespace sarfuse::sentinel1 {

// The user data's compression (the BAQ mode field).
enum class BaqMode : std::uint8_t { bypass = 0, baq3 = 3, baq4 = 4, baq5 = 5, fdbaq0 = 12, fdbaq1 = 13, fdbaq2 = 14 };
const char* to_string(BaqMode m);
bool is_fdbaq(BaqMode m);

// The signal type field of the SES SSB message (section 3.2.5.13).
enum class SignalType : std::uint8_t {
  echo = 0, noise = 1, tx_cal = 8, rx_cal = 9, epdn_cal = 10, ta_cal = 11, apdn_cal = 12, txh_cal_iso = 15
};
const char* to_string(SignalType t);

constexpr std::size_t kPrimaryHeaderBytes = 6;
constexpr std::size_t kSecondaryHeaderBytes = 62;
constexpr std::size_t kHeaderBytes = kPrimaryHeaderBytes + kSecondaryHeaderBytes;
constexpr std::uint32_t kSyncMarker = 0x352EF853;
constexpr int kBlockQuads = 128;  // BAQ / FDBAQ block: 128 quads (256 complex samples)

// Every field of a packet's primary header (CCSDS) and secondary header, as coded.
struct PacketHeader {
  // Primary header
  std::uint8_t packet_version_number = 0, packet_type = 0;
  bool secondary_header_flag = false;
  std::uint8_t pid = 0, pcat = 0, sequence_flags = 0;
  std::uint16_t packet_sequence_count = 0;
  std::uint16_t packet_data_length = 0;  // the packet's bytes - 7
  // Datation: GPS time, seconds and 2^-16 s
  std::uint32_t coarse_time = 0;
  std::uint16_t fine_time = 0;
  // Fixed ancillary data
  std::uint32_t sync_marker = 0, data_take_id = 0;
  std::uint8_t ecc_number = 0, test_mode = 0, rx_channel_id = 0;
  std::uint32_t instrument_configuration_id = 0;
  // Sub-commutated ancillary data: word `data_word_index` (1..64) of the cycle
  std::uint8_t data_word_index = 0;
  std::uint16_t data_word = 0;
  // Counters
  std::uint32_t space_packet_count = 0, pri_count = 0;
  // Radar configuration support
  bool error_flag = false;
  std::uint8_t baq_mode = 0, baq_block_length = 0, range_decimation = 0, rx_gain = 0;
  std::uint16_t tx_ramp_rate = 0, tx_pulse_start_frequency = 0;  // sign bit, 15-bit magnitude
  std::uint32_t tx_pulse_length = 0;
  std::uint8_t rank = 0;
  std::uint32_t pri = 0, swst = 0, swl = 0;
  // SAS SSB message: imaging (ssb_flag 0) the elevation and azimuth beam addresses, calibration
  // (ssb_flag 1) SAS test + calibration type and the calibration beam address
  bool ssb_flag = false;
  std::uint8_t polarisation = 0, temperature_compensation = 0, sas_dynamic = 0;
  std::uint16_t sas_beam_address = 0;
  // SES SSB message
  std::uint8_t calibration_mode = 0, tx_pulse_number = 0, signal_type = 0;
  bool swap = false;
  std::uint8_t swath_number = 0;
  // Radar sample count
  std::uint16_t number_of_quads = 0;

  std::size_t packet_bytes() const { return std::size_t{packet_data_length} + 7; }
  std::size_t samples() const { return 2 * std::size_t{number_of_quads}; }  // complex samples of the line
};

// Parses the kHeaderBytes header bytes of a packet (`available` bytes at `bytes`); `where` names the
// file and packet in messages. Throws Error naming the field for what no valid packet holds (version,
// type, secondary header flag, sync marker, a length shorter than the headers or than the file holds,
// an unknown BAQ mode).
PacketHeader parse_packet_header(const std::uint8_t* bytes, std::size_t available, const std::string& where);
// The header as the kHeaderBytes bytes it was parsed from (the encoder's inverse of the above).
std::vector<std::uint8_t> format_packet_header(const PacketHeader& h);

// Decodes a packet's user data (`size` bytes after the headers) into h.samples() complex samples in
// natural order (even samples from the IE/QE channels, odd ones from IO/QO). Throws Error naming the
// packet, channel and block for a code running past the data or a bit-rate code above 4.
void decode_user_data(const PacketHeader& h, const std::uint8_t* data, std::size_t size, std::complex<float>* out,
                      const std::string& where);

// A measurement file's packets, memory-mapped and walked once by their length fields.
class MeasurementFile {
 public:
  explicit MeasurementFile(const std::string& path);
  MeasurementFile(MeasurementFile&&) noexcept;
  MeasurementFile& operator=(MeasurementFile&&) noexcept;
  ~MeasurementFile();

  const std::string& path() const;
  std::size_t packets() const;
  const PacketHeader& header(std::size_t packet) const;
  const std::uint8_t* user_data(std::size_t packet) const;
  std::size_t user_data_bytes(std::size_t packet) const;
  std::string where(std::size_t packet) const;  // "FILE: packet N" for messages

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A Level-0 product's measurement files: those a .SAFE folder's manifest.safe lists (each checked to
// exist; index and annotation files skipped), or, in a folder without a manifest, its .dat files or its
// measurement/ folder's; or one .dat. Swath and polarisation from the file names (s1a-s3-raw-s-vv-...dat).
struct Measurement {
  std::string path, swath, polarisation;
};
std::vector<Measurement> list_measurements(const std::string& product);

struct DecodeOptions {
  std::string signal = "echo";  // echo, noise, txcal (the calibration signal types), all
  std::string polarisation;     // VV, VH, HH or HV; "" = the product's only one (an Error if it has several)
  int threads = 0;              // 0: all cores
};

// The decoded lines of one measurement file in acquisition order, zero-filled to the longest line; an
// echo line whose packet is missing (a gap in the PRI count) is a line of zeros, so the azimuth
// sampling stays uniform.
constexpr std::size_t kMissingLine = static_cast<std::size_t>(-1);
struct DecodedLines {
  std::string source;                      // the measurement file
  std::size_t lines = 0, samples = 0;      // samples: the longest line's
  ComplexImage data;                       // lines x samples
  std::vector<PacketHeader> headers;       // per line
  std::vector<std::size_t> packet_index;   // per line: its packet in the file (kMissingLine: none)
  std::vector<std::size_t> missing_lines;  // echo lines whose packets are missing (PRI count gaps), zero
  // Per line: where its first sample lies on the take's common range grid (lines whose SWST or rank
  // differ start later; the grid starts at the earliest first-sample time), in samples.
  std::vector<std::size_t> range_offset;
  double first_sample_time_s = 0;          // of the grid's column 0 (two-way)
  std::size_t packets_in_file = 0;
  std::vector<std::uint32_t> missing_after;  // space packet counts after which packets are missing
  std::size_t missing_packets = 0;
  double decode_seconds = 0;
};
DecodedLines decode_lines(const std::string& product, const DecodeOptions& options);
// The same lines' headers, packet indices and gaps without decoding their samples (data left empty).
DecodedLines index_lines(const std::string& product, const DecodeOptions& options);
// The same into `lines`, reusing its sample buffer when the shape is unchanged (a fresh buffer's pages
// cost the kernel as much to clear as the decoding to fill: take after take, keep one DecodedLines).
void decode_lines(const std::string& product, const DecodeOptions& options, DecodedLines& lines);
// The lines as a complex64 .npy (lines x samples) and beside it PATH.json: per-line header fields, packet
// indices, missing packets; both files complete or neither.
void write_decoded_lines(const DecodedLines& lines, const DecodeOptions& options, const std::string& npy_path);
std::string decoded_lines_json(const DecodedLines& lines, const DecodeOptions& options, int indent = -1);

// A packet's header fields as a JSON object (nested as the specification groups them).
std::string header_json(const PacketHeader& h, int indent = -1);
// What `sarfuse info` prints for a Level-0 product: per measurement file the packets, signal types,
// BAQ modes, line lengths, counter gaps and time span.
std::string describe_level0(const std::string& product);
// Whether `path` looks like a Level-0 product (a .SAFE folder or a .dat file).
bool is_level0_path(const std::string& path);

// ---- radar parameters from the packets ----
constexpr double kReferenceFrequencyMHz = 37.53472224;  // f_ref, S1-IF-ASD-PL-0007 section 3.2.5
constexpr double kCarrierFrequencyHz = 5.405e9;        // C-SAR
constexpr double kAntennaLengthM = 12.3;
double tx_ramp_rate_hz_per_s(const PacketHeader& h);
double tx_pulse_start_frequency_hz(const PacketHeader& h);
double tx_pulse_length_s(const PacketHeader& h);
double pri_s(const PacketHeader& h);
double swst_s(const PacketHeader& h);
double first_sample_time_s(const PacketHeader& h);  // two-way: rank x PRI + SWST + 320 / (8 f_ref)
double range_sampling_rate_hz(const PacketHeader& h, const std::string& where);
double packet_time_s(const PacketHeader& h);  // GPS seconds

// The platform's position (ECEF, m), velocity (m/s) and GPS time (s) of sub-commutated words 1..22.
constexpr int kPvtWords = 22;
struct PvtRecord {
  double x = 0, y = 0, z = 0;
  float vx = 0, vy = 0, vz = 0;
  double time_s = 0;
};
std::vector<PvtRecord> pvt_records(const std::vector<PacketHeader>& headers);  // each complete cycle's, in order
std::vector<std::uint16_t> pvt_words(const PvtRecord& record);                 // the 22 words (the encoder's)

// The take's RadarParams from its packets: carrier and antenna of C-SAR, sampling rate from the
// decimation code, chirp from the Tx fields, PRF from PRI, near range from the first-sample time, the
// effective velocity sqrt(Vs Vg) from the PVT record nearest the take's middle (Vg = Vs R_earth / |r|,
// WGS84 radius). The Doppler centroid is not in the packets: estimate it (sarfuse/doppler.hpp).
RadarParams radar_parameters(const DecodedLines& lines);
// The same with the platform from an orbit (e.g. read_orbit_file) instead of the sub-commutated PVT.
RadarParams radar_parameters(const DecodedLines& lines, const std::vector<PvtRecord>& orbit);
// The state vectors of an ESA orbit file (Sentinel-1 *_POEORB_* / *_RESORB_* .EOF, XML), times as GPS
// seconds (TAI - 19 s) like the packets'.
std::vector<PvtRecord> read_orbit_file(const std::string& path);
// A product's RadarParams in one call: its lines indexed (not decoded), the platform from `orbit_path`
// when given, else from the packets' PVT records.
RadarParams radar_parameters(const std::string& product, const DecodeOptions& options, const std::string& orbit_path = "");

// The product's lines as the focusing pipeline's raw input (sarfuse/focus_file.hpp reads it for a
// .SAFE folder or .dat input).
std::unique_ptr<RawFile> open_level0(const std::string& product, const DecodeOptions& options);

// ---- our encoder (tests and benchmarks) ----
struct EncodeOptions {
  int brc = 4;  // FDBAQ: the bit-rate code of every block, 0..4; -1: cycle 0..4 over the blocks
};
// One line's samples quantised to the codes of h.baq_mode (bypass: rounded 10-bit integers; BAQ and
// FDBAQ: per block the THIDX whose sigma factor is nearest the block's RMS, each value to the nearest
// reconstruction level) and packed into a valid packet (headers from h, with the length and number
// of quads set). `quantised` receives what decoding the packet must give back, exactly.
std::vector<std::uint8_t> encode_packet(const PacketHeader& h, const std::complex<float>* samples,
                                        std::size_t count, const EncodeOptions& options,
                                        std::vector<std::complex<float>>* quantised = nullptr);

// A measurement file of one packet per line of `lines` (encoded with `options`), headers from `first`
// with the counters, datation (by its PRI) and sub-commutated words advanced line by line, the PVT
// records' words in each cycle's words 1..22.
void write_measurement_file(const std::string& path, const ComplexImage& lines, const PacketHeader& first,
                            const std::vector<PvtRecord>& pvt, const EncodeOptions& options, int threads = 0);

// The header of a stripmap S3 echo line with the radar fields of the reference product's packet 408
// (FDBAQ, decimation 4, TXPRR 2002, TXPL 1658, PRI 19499, rank 10, SWST 5271, VV, its datation): the
// template of our synthetic takes.
PacketHeader s3_echo_header();
// A circular polar orbit over the equator (`altitude_m`, `speed_m_s`), one PVT record a second from
// `t0_s` - 2 s to `t0_s` + `duration_s` + 2 s (GPS seconds).
std::vector<PvtRecord> polar_orbit(double t0_s, double duration_s, double altitude_m = 700e3, double speed_m_s = 7500.0);

}  // namespace sarfuse::sentinel1
