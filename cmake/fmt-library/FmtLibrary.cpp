// fmt's out-of-line functions, compiled once for the whole project from libtorch's own fmt headers
// (cmake/GlueprofTorch.cmake). The rest of the project includes those headers without
// FMT_HEADER_ONLY and gets declarations only: header-only, every translation unit that formats
// compiled fmt's implementation again (about 3 s of a 2-core build per file).
//
// What fmt's own src/format.cc does: format-inl.h defines the functions; the explicit
// instantiations are the templates declared in the headers and defined only in format-inl.h (the
// ones format.h declares `extern template`, the float conversions dragonbox leaves to the library,
// and the locale a locale_ref holds, which fmt/chrono.h and fmt/xchar.h read). Written for the fmt
// 12 that torch 2.11 ships; fmt 10 and 11 (older libtorch through TORCH_DIR) keep locale_ref in
// `detail`. fmt's src/os.cc (fmt/os.h: files, pipes) is not compiled: nothing here includes os.h.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE

#if FMT_USE_LOCALE
#if FMT_VERSION >= 120000
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;
#else
template FMT_API auto detail::locale_ref::get<std::locale>() const -> std::locale;
#endif
#endif

namespace detail {

template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;

template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;

}  // namespace detail
FMT_END_NAMESPACE
