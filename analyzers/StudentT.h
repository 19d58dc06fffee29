#pragma once
// Student's t distribution: what an interval over a handful of A/B blocks needs (the 97.5th
// percentile for a 95% interval, the 80th for the effect an A/B detects 4 times in 5).
namespace glueprof {

// P(T <= t) for Student's t with `df` > 0 degrees of freedom.
double studentTCdf(double t, double df);

// The p-quantile (0 < p < 1) of Student's t with `df` > 0 degrees of freedom: the t with
// studentTCdf(t, df) = p, to about 1e-12.
double studentTQuantile(double p, double df);

}  // namespace glueprof
