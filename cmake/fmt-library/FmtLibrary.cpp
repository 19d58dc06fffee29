// fmt's out-of-line functions, compiled once for the whole project from libtorch's own fmt headers
// (cmake/GlueprofTorch.cmake). The rest of the project includes those headers without
// FMT_HEADER_ONLY and gets declarations only: header-only, every translation unit that formats
// compiled fmt's implementation again (about 3 s of a 2-core build per file).
//
// What fmt's own src/format.cc does: format-inl.h defines the functions; the explicit
// instantiations are the ones format.h declares `extern template` (and the float conversions
// dragonbox leaves to the library).
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;

template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;

}  // namespace detail
FMT_END_NAMESPACE
