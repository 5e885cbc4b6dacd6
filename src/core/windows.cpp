#include <cmath>
#include <sstream>

#include "sarfuse/error.hpp"
#include "sarfuse/plan.hpp"

namespace sarfuse {

Window Window::parse(const std::string& text) {
  Window w;
  const auto colon = text.find(':');
  const std::string name = text.substr(0, colon);
  const bool has_param = colon != std::string::npos;
  double param = 0;
  if (has_param) {
    const std::string value = text.substr(colon + 1);
    try {
      std::size_t used = 0;
      param = std::stod(value, &used);
      if (used != value.size()) throw std::invalid_argument(value);
    } catch (const std::exception&) {
      throw Error("window '" + text + "': parameter '" + value + "' is not a number");
    }
  }
  if (name == "none" || name == "rect") {
    w.kind = Kind::none;
  } else if (name == "kaiser") {
    w.kind = Kind::kaiser;
    w.param = has_param ? param : 2.5;
    if (!(w.param >= 0 && w.param <= 20)) throw Error("window '" + text + "': Kaiser beta must be in [0, 20]");
  } else if (name == "hamming") {
    w.kind = Kind::hamming;
    w.param = has_param ? param : 0.54;
    if (!(w.param >= 0.5 && w.param <= 1)) throw Error("window '" + text + "': Hamming alpha must be in [0.5, 1]");
  } else if (name == "tukey") {
    w.kind = Kind::tukey;
    w.param = has_param ? param : 0.2;
    if (!(w.param > 0 && w.param <= 1)) throw Error("window '" + text + "': Tukey taper fraction must be in (0, 1]");
  } else {
    throw Error("window '" + text + "': expected none, hamming[:alpha], kaiser[:beta] or tukey[:fraction]");
  }
  return w;
}

std::string Window::to_string() const {
  std::ostringstream s;
  switch (kind) {
    case Kind::none: return "none";
    case Kind::kaiser: s << "kaiser:" << param; return s.str();
    case Kind::hamming: s << "hamming:" << param; return s.str();
    case Kind::tukey: s << "tukey:" << param; return s.str();
  }
  return "none";
}

double Window::weight(double x) const {
  if (std::abs(x) > 0.5) return 0.0;
  switch (kind) {
    case Kind::none: return 1.0;
    case Kind::hamming: return param + (1.0 - param) * std::cos(2.0 * M_PI * x);
    case Kind::tukey: {  // flat, then a half cosine to 0 over the outer `param` of the band
      const double flat = 0.5 * (1.0 - param), a = std::abs(x);
      return a <= flat ? 1.0 : 0.5 * (1.0 + std::cos(M_PI * (a - flat) / (0.5 * param)));
    }
    case Kind::kaiser: {
      const double r = 2.0 * x;
      return std::cyl_bessel_i(0.0, param * std::sqrt(std::max(0.0, 1.0 - r * r))) / std::cyl_bessel_i(0.0, param);
    }
  }
  return 1.0;
}

}  // namespace sarfuse
