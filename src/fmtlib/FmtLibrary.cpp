// fmt's compiled part, built once into fenceline_core (CMake FENCELINE_FMT_HEADER_ONLY).
// With FMT_HEADER_ONLY every translation unit that includes <fmt/format.h> compiles
// fmt's whole implementation (format-inl.h: float formatting, the Dragonbox tables,
// vformat) again: about 6 s of CPU per file at -O2 -g, a fifth of a clean build
// (docs/performance.md, "CI wall time (session 28)"). Here the other files include
// fmt's declarations only and this one file defines them (format-inl.h with FMT_FUNC
// empty, plus the templates the headers declare but define only in format-inl.h), so the
// binary still needs no libfmt.so.
#include <fmt/format-inl.h>

#include <locale>

FMT_BEGIN_NAMESPACE
namespace detail {

template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;

#ifndef FMT_STATIC_THOUSANDS_SEPARATOR
template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;
#endif

template FMT_API auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto thousands_sep_impl<wchar_t>(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;

template FMT_API void vformat_to(buffer<char>&, string_view, basic_format_args<buffer_context<char>>,
                                 locale_ref);

}  // namespace detail
FMT_END_NAMESPACE
