//! Formats a device printf record as C's `printf` would, on the host: the format string's
//! conversions (`ptxvk_translator::printf`) applied to the argument buffer the kernel copied.

use std::borrow::Cow;

use ptxvk_translator::printf::{self, ArgKind, Count, Length, Piece, Spec};

/// Appends the output of format `fmt` (up to its NUL) with argument buffer `args`; `%s`
/// reads strings through `lookup` (device address to the bytes from there on).
pub(crate) fn format<'s>(
    out: &mut Vec<u8>,
    fmt: &[u8],
    args: &[u8],
    lookup: &dyn Fn(u64) -> Option<Cow<'s, [u8]>>,
) {
    let fmt = until_nul(fmt);
    let pieces = printf::parse(fmt);
    let (layout, _) = printf::layout(&pieces);
    let mut next = layout.iter();
    let mut take = |kind: ArgKind| -> Option<u64> {
        let &(k, at) = next.next()?;
        debug_assert_eq!(k, kind);
        let at = at as usize;
        let b = args.get(at..at + k.bytes() as usize)?;
        let mut w = [0u8; 8];
        w[..b.len()].copy_from_slice(b);
        Some(u64::from_le_bytes(w))
    };
    for p in &pieces {
        match p {
            Piece::Text(t) => out.extend_from_slice(t),
            Piece::Conv(s) => {
                let mut s = *s;
                let mut width = None;
                if let Some(w) = s.width {
                    width = Some(match w {
                        Count::Fixed(n) => i64::from(n),
                        Count::Arg => i64::from(take(ArgKind::Int32).unwrap_or(0) as u32 as i32),
                    });
                }
                if width.is_some_and(|w| w < 0) {
                    s.minus = true;
                }
                let width = width.map(|w| w.unsigned_abs() as usize);
                let precision = match s.precision {
                    None => None,
                    Some(Count::Fixed(n)) => Some(n as usize),
                    // A negative precision is taken as if none were given.
                    Some(Count::Arg) => {
                        let p = take(ArgKind::Int32).unwrap_or(0) as u32 as i32;
                        usize::try_from(p).ok()
                    }
                };
                let Some(v) = take(s.arg()) else {
                    out.extend_from_slice(b"<missing argument>");
                    continue;
                };
                let body = convert(&s, v, precision, lookup);
                pad(out, &s, width, body);
            }
        }
    }
}

fn until_nul(b: &[u8]) -> &[u8] {
    &b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())]
}

/// A conversion's text before padding: its sign or prefix apart, so that `0` pads between.
struct Body {
    prefix: Vec<u8>,
    digits: Vec<u8>,
    /// Zero padding applies (numbers without a precision, and floats).
    zero_ok: bool,
}

fn convert<'s>(
    s: &Spec,
    v: u64,
    precision: Option<usize>,
    lookup: &dyn Fn(u64) -> Option<Cow<'s, [u8]>>,
) -> Body {
    let text = |digits: Vec<u8>| Body {
        prefix: Vec::new(),
        digits,
        zero_ok: false,
    };
    match s.conv {
        b'd' | b'i' => {
            let x = signed(s, v);
            let prefix = if x < 0 {
                b"-".to_vec()
            } else if s.plus {
                b"+".to_vec()
            } else if s.space {
                b" ".to_vec()
            } else {
                Vec::new()
            };
            Body {
                prefix,
                digits: int_digits(x.unsigned_abs().to_string().into_bytes(), precision),
                zero_ok: precision.is_none(),
            }
        }
        b'u' | b'o' | b'x' | b'X' => {
            let x = unsigned(s, v);
            let mut digits = match s.conv {
                b'u' => x.to_string(),
                b'o' => format!("{x:o}"),
                b'x' => format!("{x:x}"),
                _ => format!("{x:X}"),
            }
            .into_bytes();
            if s.conv == b'o' && s.alt && digits.first() != Some(&b'0') {
                digits.insert(0, b'0');
            }
            let digits = int_digits(digits, precision);
            let prefix = match s.conv {
                b'x' if s.alt && x != 0 => b"0x".to_vec(),
                b'X' if s.alt && x != 0 => b"0X".to_vec(),
                _ => Vec::new(),
            };
            Body {
                prefix,
                digits,
                zero_ok: precision.is_none(),
            }
        }
        b'c' => text(vec![v as u8]),
        b'p' => text(if v == 0 {
            b"(nil)".to_vec()
        } else {
            format!("0x{v:x}").into_bytes()
        }),
        b's' => {
            let mut b = if v == 0 {
                b"(null)".to_vec()
            } else {
                match lookup(v) {
                    Some(s) => until_nul(&s).to_vec(),
                    None => format!("<string at {v:#x}>").into_bytes(),
                }
            };
            if let Some(p) = precision {
                b.truncate(p);
            }
            text(b)
        }
        b'n' => text(Vec::new()),
        _ => float(s, f64::from_bits(v), precision),
    }
}

fn signed(s: &Spec, v: u64) -> i64 {
    match s.length {
        Length::Long => v as i64,
        Length::Short => i64::from(v as u16 as i16),
        Length::Char => i64::from(v as u8 as i8),
        Length::Int => i64::from(v as u32 as i32),
    }
}

fn unsigned(s: &Spec, v: u64) -> u64 {
    match s.length {
        Length::Long => v,
        Length::Short => u64::from(v as u16),
        Length::Char => u64::from(v as u8),
        Length::Int => u64::from(v as u32),
    }
}

/// At least `precision` digits; precision 0 and value 0 print nothing.
fn int_digits(digits: Vec<u8>, precision: Option<usize>) -> Vec<u8> {
    match precision {
        Some(0) if digits == b"0" => Vec::new(),
        Some(p) if p > digits.len() => {
            let mut d = vec![b'0'; p - digits.len()];
            d.extend(digits);
            d
        }
        _ => digits,
    }
}

fn float(s: &Spec, x: f64, precision: Option<usize>) -> Body {
    let upper = s.conv.is_ascii_uppercase();
    let prefix = if x.is_sign_negative() {
        b"-".to_vec()
    } else if s.plus {
        b"+".to_vec()
    } else if s.space {
        b" ".to_vec()
    } else {
        Vec::new()
    };
    let a = x.abs();
    let digits = if !a.is_finite() {
        let t = if a.is_nan() { "nan" } else { "inf" };
        return Body {
            prefix,
            digits: if upper { t.to_uppercase() } else { t.into() }.into_bytes(),
            zero_ok: false,
        };
    } else {
        let p = precision.unwrap_or(6);
        match s.conv.to_ascii_lowercase() {
            b'f' => fixed(a, p, s.alt),
            b'e' => exponent(a, p, s.alt),
            b'g' => general(a, p, s.alt),
            _ => hex_float(a, precision),
        }
    };
    let digits = if upper { digits.to_uppercase() } else { digits };
    Body {
        prefix,
        digits: digits.into_bytes(),
        zero_ok: true,
    }
}

fn fixed(a: f64, p: usize, alt: bool) -> String {
    let mut t = format!("{a:.p$}");
    if alt && p == 0 {
        t.push('.');
    }
    t
}

fn exponent(a: f64, p: usize, alt: bool) -> String {
    // Rust writes `1.5e3`; C writes `1.500000e+03`.
    let t = format!("{a:.p$e}");
    let (m, e) = t.split_once('e').unwrap_or((&t, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let dot = if alt && p == 0 { "." } else { "" };
    let sign = if e < 0 { '-' } else { '+' };
    format!("{m}{dot}e{sign}{:02}", e.unsigned_abs())
}

fn general(a: f64, p: usize, alt: bool) -> String {
    let p = p.max(1);
    // The exponent `%e` would print at precision p - 1.
    let x = if a == 0.0 {
        0
    } else {
        let t = format!("{a:.*e}", p - 1);
        t.split_once('e')
            .and_then(|(_, e)| e.parse::<i32>().ok())
            .unwrap_or(0)
    };
    let mut t = if (x as i64) < p as i64 && x >= -4 {
        fixed(a, (p as i64 - 1 - i64::from(x)) as usize, alt)
    } else {
        exponent(a, p - 1, alt)
    };
    if !alt {
        let (m, e) = match t.find('e') {
            Some(i) => (t[..i].to_string(), t[i..].to_string()),
            None => (t.clone(), String::new()),
        };
        let m = if m.contains('.') {
            m.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            m
        };
        t = m + &e;
    }
    t
}

/// `%a`: the shortest exact hexadecimal form (glibc's), or rounded to `precision` digits.
fn hex_float(a: f64, precision: Option<usize>) -> String {
    if a == 0.0 {
        return match precision {
            Some(p) if p > 0 => format!("0x0.{}p+0", "0".repeat(p)),
            _ => "0x0p+0".into(),
        };
    }
    let bits = a.to_bits();
    let (mut lead, mut e) = ((bits >> 52) & 0x7FF, ((bits >> 52) & 0x7FF) as i64 - 1023);
    let mut mant = bits & ((1 << 52) - 1);
    if lead == 0 {
        // Subnormal: glibc prints 0x0.xxxp-1022.
        e = -1022;
    } else {
        lead = 1;
    }
    let mut digits = format!("{mant:013x}");
    if let Some(p) = precision.filter(|&p| p < 13) {
        let shift = 4 * (13 - p) as u32;
        let keep = mant >> shift;
        let rest = mant & ((1u64 << shift) - 1);
        let half = 1u64 << (shift - 1);
        let mut keep = keep;
        if rest > half || (rest == half && keep & 1 == 1) {
            keep += 1;
        }
        if keep >> (4 * p as u32) != 0 {
            lead += 1;
            keep &= (1u64 << (4 * p as u32)) - 1;
        }
        mant = keep;
        digits = if p == 0 {
            String::new()
        } else {
            format!("{mant:0w$x}", w = p)
        };
    } else {
        digits = digits.trim_end_matches('0').to_string();
    }
    let dot = if digits.is_empty() { "" } else { "." };
    let sign = if e < 0 { '-' } else { '+' };
    format!("0x{lead}{dot}{digits}p{sign}{}", e.unsigned_abs())
}

fn pad(out: &mut Vec<u8>, s: &Spec, width: Option<usize>, b: Body) {
    let len = b.prefix.len() + b.digits.len();
    let fill = width.unwrap_or(0).saturating_sub(len);
    if s.minus {
        out.extend_from_slice(&b.prefix);
        out.extend_from_slice(&b.digits);
        out.extend(std::iter::repeat_n(b' ', fill));
    } else if s.zero && b.zero_ok {
        out.extend_from_slice(&b.prefix);
        out.extend(std::iter::repeat_n(b'0', fill));
        out.extend_from_slice(&b.digits);
    } else {
        out.extend(std::iter::repeat_n(b' ', fill));
        out.extend_from_slice(&b.prefix);
        out.extend_from_slice(&b.digits);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Formats through the C library's own `snprintf` and through ours, for one argument.
    fn both(fmt: &str, arg: Arg) -> (String, String) {
        let cfmt = std::ffi::CString::new(fmt).unwrap_or_default();
        let mut buf = vec![0u8; 256];
        // SAFETY: a NUL-terminated format with one conversion of the argument's type, into a
        // buffer of the length given.
        let n = unsafe {
            match arg {
                Arg::I32(x) => snprintf(buf.as_mut_ptr(), buf.len(), cfmt.as_ptr(), x),
                Arg::I64(x) => snprintf(buf.as_mut_ptr(), buf.len(), cfmt.as_ptr(), x),
                Arg::F64(x) => snprintf(buf.as_mut_ptr(), buf.len(), cfmt.as_ptr(), x),
            }
        };
        buf.truncate(n.max(0) as usize);
        let mut args = Vec::new();
        match arg {
            Arg::I32(x) => args.extend_from_slice(&x.to_le_bytes()),
            Arg::I64(x) => args.extend_from_slice(&x.to_le_bytes()),
            Arg::F64(x) => args.extend_from_slice(&x.to_le_bytes()),
        }
        let mut ours = Vec::new();
        format(&mut ours, fmt.as_bytes(), &args, &|_| None);
        (
            String::from_utf8_lossy(&buf).into_owned(),
            String::from_utf8_lossy(&ours).into_owned(),
        )
    }

    #[derive(Clone, Copy)]
    enum Arg {
        I32(i32),
        I64(i64),
        F64(f64),
    }

    unsafe extern "C" {
        fn snprintf(buf: *mut u8, n: usize, fmt: *const std::ffi::c_char, ...) -> i32;
    }

    #[test]
    fn conversions_match_the_c_library() {
        let ints = [0, 1, -1, 42, -42, 255, i32::MAX, i32::MIN, 1000000];
        let int_fmts = [
            "%d", "%i", "%5d", "%-5d|", "%05d", "%+d", "% d", "%.3d", "%8.3d", "%u", "%x", "%X",
            "%#x", "%#o", "%o", "%c", "%hd", "%hhu", "%.0d", "%08.3x",
        ];
        for f in int_fmts {
            for &x in &ints {
                let x = if f == "%c" { x & 0x7F | 0x20 } else { x };
                let (c, ours) = both(f, Arg::I32(x));
                assert_eq!(c, ours, "{f} of {x}");
            }
        }
        for f in ["%ld", "%lld", "%llu", "%lx", "%20lld", "%-+20ld|"] {
            for x in [0, -1, i64::MAX, i64::MIN, 1 << 40] {
                let (c, ours) = both(f, Arg::I64(x));
                assert_eq!(c, ours, "{f} of {x}");
            }
        }
        let floats = [
            0.0,
            -0.0,
            1.0,
            -1.5,
            0.1,
            std::f64::consts::PI,
            1e-5,
            123456789.0,
            1e100,
            2.5e-300,
            0.5,
            1.5,
            2.5,
            999999.5,
            1e-320,
            f64::INFINITY,
            f64::NAN,
            -f64::INFINITY,
            100.0,
        ];
        let float_fmts = [
            "%f", "%.2f", "%10.3f", "%-10.1f|", "%010.2f", "%+f", "%e", "%.3e", "%E", "%g", "%.3g",
            "%10g", "%G", "%#g", "%.0f", "%#.0f", "%.0e", "%g", "%.10g", "%a", "%.3a", "%A",
        ];
        for f in float_fmts {
            for &x in &floats {
                // glibc keeps no digits after the point when `%#g` rounds up to the next power
                // of ten ("1.e+06"); C asks for the precision's digits, which ptxvk prints.
                if f == "%#g" && x == 999999.5 {
                    continue;
                }
                let (c, ours) = both(f, Arg::F64(x));
                assert_eq!(c, ours, "{f} of {x:e}");
            }
        }
    }

    #[test]
    fn strings_and_several_arguments() {
        let mut args = Vec::new();
        args.extend_from_slice(&7i32.to_le_bytes());
        args.extend_from_slice(&[0; 4]);
        args.extend_from_slice(&0x1000u64.to_le_bytes());
        args.extend_from_slice(&0x1002u64.to_le_bytes());
        args.extend_from_slice(&2.5f64.to_le_bytes());
        let strings = b"hello\0";
        let lookup = |a: u64| {
            a.checked_sub(0x1000)
                .and_then(|o| strings.get(o as usize..))
                .map(Cow::Borrowed)
        };
        let mut out = Vec::new();
        format(&mut out, b"%d [%-7s] [%.2s] %g%%\n\0junk", &args, &lookup);
        assert_eq!(String::from_utf8_lossy(&out), "7 [hello  ] [ll] 2.5%\n");
    }
}
