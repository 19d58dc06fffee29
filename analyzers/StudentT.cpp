#include "analyzers/StudentT.h"

#include <cmath>
#include <initializer_list>

namespace glueprof {

namespace {

// The continued fraction of the regularized incomplete beta function I_x(a, b), by the modified
// Lentz method (Numerical Recipes 6.4): converges fast for x < (a + 1) / (a + b + 2).
double betaContinuedFraction(double a, double b, double x) {
    constexpr double kTiny = 1e-300;
    constexpr double kEpsilon = 1e-15;
    double c = 1.0;
    double d = 1.0 - (a + b) * x / (a + 1.0);
    d = 1.0 / (std::fabs(d) < kTiny ? kTiny : d);
    double fraction = d;
    for (int m = 1; m <= 500; ++m) {
        const double twoM = 2.0 * m;
        // The even step, then the odd step of the fraction.
        for (const double numerator :
             {m * (b - m) * x / ((a + twoM - 1.0) * (a + twoM)),
              -(a + m) * (a + b + m) * x / ((a + twoM) * (a + twoM + 1.0))}) {
            d = 1.0 + numerator * d;
            d = 1.0 / (std::fabs(d) < kTiny ? kTiny : d);
            c = 1.0 + numerator / c;
            if (std::fabs(c) < kTiny) c = kTiny;
            fraction *= c * d;
        }
        if (std::fabs(c * d - 1.0) < kEpsilon) break;
    }
    return fraction;
}

// I_x(a, b), the regularized incomplete beta function, for 0 <= x <= 1.
double regularizedBeta(double a, double b, double x) {
    if (x <= 0.0) return 0.0;
    if (x >= 1.0) return 1.0;
    const double logFront =
        std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
    if (x < (a + 1.0) / (a + b + 2.0))
        return std::exp(logFront) * betaContinuedFraction(a, b, x) / a;
    return 1.0 - std::exp(logFront) * betaContinuedFraction(b, a, 1.0 - x) / b;
}

}  // namespace

double studentTCdf(double t, double df) {
    // P(|T| > |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2).
    const double tail = 0.5 * regularizedBeta(0.5 * df, 0.5, df / (df + t * t));
    return t >= 0.0 ? 1.0 - tail : tail;
}

double studentTQuantile(double p, double df) {
    if (p == 0.5) return 0.0;
    // Bisection on the monotone CDF: widen the bracket until it holds p, then halve it. 200
    // halvings of a bracket below 1e30 reach the double's resolution; the CDF's own accuracy
    // (about 1e-15) bounds the answer's.
    double low = -1.0;
    double high = 1.0;
    while (studentTCdf(low, df) > p) low *= 2.0;
    while (studentTCdf(high, df) < p) high *= 2.0;
    for (int i = 0; i < 200 && high - low > 1e-13 * std::fmax(1.0, std::fabs(low)); ++i) {
        const double mid = 0.5 * (low + high);
        (studentTCdf(mid, df) < p ? low : high) = mid;
    }
    return 0.5 * (low + high);
}

}  // namespace glueprof
