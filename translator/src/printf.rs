//! Device `printf` format strings: the conversions they hold and the argument buffer CUDA's
//! `vprintf` receives for them. The translator sizes each call's record by it, the runtime
//! formats the records by it (`docs/decisions/0179-device-printf-and-heap.md`).
//!
//! The argument buffer holds each argument after C's default promotions (integers narrower
//! than `int` as 4 bytes, `float` as `double`), at the next multiple of its own size.

/// A conversion's length modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Length {
    /// None, `h` or `hh`: an `int` in the buffer, narrowed when formatted.
    Int,
    Short,
    Char,
    /// `l`, `ll`, `j`, `z`, `t`: 64 bits (device `long` is 64-bit, as on 64-bit Linux).
    Long,
}

/// A width or precision: written in the format, or taken from the arguments (`*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    Fixed(u32),
    Arg,
}

/// One `%` conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spec {
    pub minus: bool,
    pub plus: bool,
    pub space: bool,
    pub alt: bool,
    pub zero: bool,
    pub width: Option<Count>,
    pub precision: Option<Count>,
    pub length: Length,
    /// The conversion character (`d`, `f`, `s`, ...).
    pub conv: u8,
}

/// A piece of a format string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Text copied as it is (`%%` becomes one `%`; an unknown conversion stays as written).
    Text(&'a [u8]),
    Conv(Spec),
}

/// What an argument is in the buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    Int32,
    Int64,
    Double,
    /// A device address (`%s`, `%p`).
    Pointer,
}

impl ArgKind {
    pub fn bytes(self) -> u32 {
        match self {
            ArgKind::Int32 => 4,
            _ => 8,
        }
    }
}

impl Spec {
    /// The argument the conversion itself takes (after any `*` width and precision).
    pub fn arg(&self) -> ArgKind {
        match self.conv {
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => ArgKind::Double,
            b's' | b'p' | b'n' => ArgKind::Pointer,
            _ if self.length == Length::Long => ArgKind::Int64,
            _ => ArgKind::Int32,
        }
    }

    /// Every argument the conversion takes, in order.
    pub fn args(&self) -> impl Iterator<Item = ArgKind> {
        let star = |c: Option<Count>| (c == Some(Count::Arg)).then_some(ArgKind::Int32);
        [star(self.width), star(self.precision), Some(self.arg())]
            .into_iter()
            .flatten()
    }
}

const CONVERSIONS: &[u8] = b"diouxXcsfFeEgGaApn";

/// Splits a format string (without its terminating NUL) into text and conversions.
pub fn parse(fmt: &[u8]) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut text = 0;
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            i += 1;
            continue;
        }
        if fmt.get(i + 1) == Some(&b'%') {
            out.push(Piece::Text(&fmt[text..=i]));
            i += 2;
            text = i;
            continue;
        }
        let (spec, end) = conversion(fmt, i + 1);
        // Not a conversion: printed as written.
        if let Some(s) = spec {
            if text < i {
                out.push(Piece::Text(&fmt[text..i]));
            }
            out.push(Piece::Conv(s));
            text = end;
        }
        i = end.max(i + 1);
    }
    if text < fmt.len() {
        out.push(Piece::Text(&fmt[text..]));
    }
    out
}

/// The conversion after a `%` at `at`, and where it ends.
fn conversion(fmt: &[u8], mut at: usize) -> (Option<Spec>, usize) {
    let mut s = Spec {
        minus: false,
        plus: false,
        space: false,
        alt: false,
        zero: false,
        width: None,
        precision: None,
        length: Length::Int,
        conv: 0,
    };
    while let Some(&c) = fmt.get(at) {
        match c {
            b'-' => s.minus = true,
            b'+' => s.plus = true,
            b' ' => s.space = true,
            b'#' => s.alt = true,
            b'0' => s.zero = true,
            _ => break,
        }
        at += 1;
    }
    let count = |at: &mut usize| -> Option<Count> {
        if fmt.get(*at) == Some(&b'*') {
            *at += 1;
            return Some(Count::Arg);
        }
        let start = *at;
        let mut n = 0u32;
        while let Some(d) = fmt.get(*at).filter(|c| c.is_ascii_digit()) {
            n = n.saturating_mul(10).saturating_add(u32::from(d - b'0'));
            *at += 1;
        }
        (*at > start).then_some(Count::Fixed(n))
    };
    s.width = count(&mut at);
    if fmt.get(at) == Some(&b'.') {
        at += 1;
        s.precision = Some(count(&mut at).unwrap_or(Count::Fixed(0)));
    }
    loop {
        match fmt.get(at) {
            Some(b'h') => {
                s.length = if s.length == Length::Short {
                    Length::Char
                } else {
                    Length::Short
                };
            }
            Some(b'l' | b'j' | b'z' | b't' | b'L' | b'q') => s.length = Length::Long,
            _ => break,
        }
        at += 1;
    }
    match fmt.get(at) {
        Some(&c) if CONVERSIONS.contains(&c) => {
            s.conv = c;
            (Some(s), at + 1)
        }
        _ => (None, at),
    }
}

/// Where each argument of `pieces` lies in the buffer, and the buffer's size in bytes.
pub fn layout(pieces: &[Piece<'_>]) -> (Vec<(ArgKind, u32)>, u32) {
    let mut at = 0u32;
    let mut args = Vec::new();
    for p in pieces {
        if let Piece::Conv(s) = p {
            for k in s.args() {
                at = at.next_multiple_of(k.bytes());
                args.push((k, at));
                at += k.bytes();
            }
        }
    }
    (args, at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_promoted_and_aligned_to_their_size() {
        // As clang and nvcc pack `printf("%d %f %lld %s %c", i, f, q, s, c)`: the double and
        // the 64-bit values at multiples of 8.
        let p = parse(b"i=%d f=%f q=%lld s=%s c=%c\n");
        let (args, bytes) = layout(&p);
        let at: Vec<u32> = args.iter().map(|a| a.1).collect();
        assert_eq!(at, [0, 8, 16, 24, 32]);
        assert_eq!(bytes, 36);
    }

    #[test]
    fn percent_signs_stars_and_unknown_conversions() {
        let p = parse(b"100%% %*.*f %y %-08.3hhx");
        assert_eq!(p[0], Piece::Text(b"100%"));
        let Piece::Conv(s) = p[2] else {
            panic!("{p:?}")
        };
        assert_eq!(
            (s.width, s.precision, s.conv),
            (Some(Count::Arg), Some(Count::Arg), b'f')
        );
        let (args, bytes) = layout(&p);
        assert_eq!(args.len(), 4);
        assert_eq!(bytes, 20);
        assert!(p.contains(&Piece::Text(b" %y ")));
        let Some(Piece::Conv(x)) = p.last() else {
            panic!("{p:?}")
        };
        assert!(
            x.minus && x.zero && x.length == Length::Char && x.precision == Some(Count::Fixed(3))
        );
    }
}
