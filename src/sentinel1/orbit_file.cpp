// ESA Earth Explorer orbit files (Sentinel-1 POEORB / RESORB .EOF): the state vectors of
// Data_Block/List_of_OSVs/OSV (TAI, X, Y, Z, VX, VY, VZ), read with pugixml.
#include <pugixml.hpp>

#include <cstdio>
#include <string>

#include "sarfuse/error.hpp"
#include "sarfuse/sentinel1.hpp"

namespace sarfuse::sentinel1 {

namespace {

// Days from 1970-01-01 of a civil date (proleptic Gregorian).
long days_from_civil(long y, unsigned m, unsigned d) {
  y -= m <= 2;
  const long era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long>(doe) - 719468;
}

// "TAI=2020-06-14T22:59:42.000000" -> GPS seconds (GPS = TAI - 19 s, from 1980-01-06).
double gps_seconds(const std::string& text, const std::string& where) {
  int y, mo, d, h, mi;
  double s;
  const std::size_t eq = text.find('=');
  const std::string t = eq == std::string::npos ? text : text.substr(eq + 1);
  if (std::sscanf(t.c_str(), "%d-%d-%dT%d:%d:%lf", &y, &mo, &d, &h, &mi, &s) != 6)
    throw Error(where + ": TAI '" + text + "': expected TAI=YYYY-MM-DDThh:mm:ss.ssssss");
  const long days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) - days_from_civil(1980, 1, 6);
  return static_cast<double>(days) * 86400.0 + h * 3600.0 + mi * 60.0 + s - 19.0;
}

double number(const pugi::xml_node& osv, const char* name, const std::string& where) {
  const pugi::xml_node n = osv.child(name);
  char* end = nullptr;
  const double v = n ? std::strtod(n.child_value(), &end) : 0.0;
  if (!n || end == n.child_value())
    throw Error(where + ": " + name + ": expected a number (got '" + std::string(n ? n.child_value() : "") + "')");
  return v;
}

}  // namespace

std::vector<PvtRecord> read_orbit_file(const std::string& path) {
  pugi::xml_document doc;
  const pugi::xml_parse_result ok = doc.load_file(path.c_str());
  if (!ok) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) throw FileError(path + ": cannot open the orbit file");
    std::fclose(f);
    throw Error(path + ": not XML (" + ok.description() + " at byte " + std::to_string(ok.offset) + ")");
  }
  const pugi::xml_node list = doc.child("Earth_Explorer_File").child("Data_Block").child("List_of_OSVs");
  if (!list) throw Error(path + ": Earth_Explorer_File/Data_Block/List_of_OSVs: missing (not an ESA orbit file)");
  std::vector<PvtRecord> out;
  std::size_t k = 0;
  for (const pugi::xml_node osv : list.children("OSV")) {
    const std::string where = path + ": OSV " + std::to_string(k++);
    PvtRecord r;
    r.time_s = gps_seconds(osv.child_value("TAI"), where);
    r.x = number(osv, "X", where);
    r.y = number(osv, "Y", where);
    r.z = number(osv, "Z", where);
    r.vx = static_cast<float>(number(osv, "VX", where));
    r.vy = static_cast<float>(number(osv, "VY", where));
    r.vz = static_cast<float>(number(osv, "VZ", where));
    out.push_back(r);
  }
  if (out.empty()) throw Error(path + ": List_of_OSVs: no OSV");
  return out;
}

}  // namespace sarfuse::sentinel1
