//! The `--arg`, `--grid` and `--block` syntax of `ptxvk run`.
//!
//! ```text
//! --arg 1000                 a scalar, read as the parameter's PTX type
//! --arg f32:2.5              a scalar of an explicit type
//! --arg x=f32[1000]:rand     a buffer named x: 1000 random f32 in [-1, 1)
//! --arg f32[1000]:iota       0, 1, 2, ...
//! --arg f32[1000]:1.5        every element 1.5 (`zeros` is the default)
//! --arg u32[4]:[1,2,3,4]     listed values
//! --arg x=f32[]:@in.bin      raw little-endian values from a file (its size gives the count)
//! --arg f32[64]:rand(7)      random with seed 7
//! ```

use anyhow::{Context, Result, anyhow, bail};
use ptxvk_runtime::translator::ScalarType;

/// A parsed `--arg`.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgSpec {
    Scalar {
        ty: Option<ScalarType>,
        text: String,
    },
    Buffer {
        name: Option<String>,
        ty: ScalarType,
        count: Option<usize>,
        init: Init,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    Zeros,
    Iota,
    Rand(u64),
    Fill(String),
    List(Vec<String>),
    File(String),
}

/// `X[,Y[,Z]]`
pub fn parse_dims(s: &str) -> Result<[u32; 3]> {
    let parts: Vec<&str> = s.split([',', 'x']).map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        bail!("expected X[,Y[,Z]], got `{s}`");
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        d[i] = p
            .parse()
            .with_context(|| format!("`{p}` in `{s}` is not a positive integer"))?;
    }
    Ok(d)
}

fn parse_type(s: &str) -> Result<ScalarType> {
    let name = s.trim().trim_start_matches('.');
    ScalarType::from_name(name)
        .filter(|t| *t != ScalarType::Pred)
        .ok_or_else(|| anyhow!("unknown type `{s}` (use a PTX type such as f32, u32, s64, f16)"))
}

pub fn parse_arg(s: &str) -> Result<ArgSpec> {
    if let Some(open) = s.find('[') {
        let (head, rest) = s.split_at(open);
        let (name, ty) = match head.split_once('=') {
            Some((n, t)) => (Some(n.trim().to_string()), t),
            None => (None, head),
        };
        let ty = parse_type(ty)?;
        let close = rest
            .find(']')
            .ok_or_else(|| anyhow!("missing `]` in `{s}`"))?;
        let count_text = rest[1..close].trim();
        let count = if count_text.is_empty() {
            None
        } else {
            Some(
                count_text
                    .parse::<usize>()
                    .with_context(|| format!("buffer size `{count_text}` is not a number"))?,
            )
        };
        let after = rest[close + 1..].trim();
        let init = match after.strip_prefix(':') {
            None if after.is_empty() => Init::Zeros,
            None => bail!("expected `:INIT` after the buffer size in `{s}`"),
            Some(i) => parse_init(i.trim())?,
        };
        if count.is_none() && !matches!(init, Init::File(_) | Init::List(_)) {
            bail!("`{s}`: give a size (`{ty}[N]`) unless the values come from a file or a list");
        }
        return Ok(ArgSpec::Buffer {
            name,
            ty,
            count,
            init,
        });
    }
    match s.split_once(':') {
        Some((t, v)) if ScalarType::from_name(t.trim().trim_start_matches('.')).is_some() => {
            Ok(ArgSpec::Scalar {
                ty: Some(parse_type(t)?),
                text: v.trim().to_string(),
            })
        }
        _ => Ok(ArgSpec::Scalar {
            ty: None,
            text: s.trim().to_string(),
        }),
    }
}

fn parse_init(s: &str) -> Result<Init> {
    Ok(match s {
        "zeros" | "zero" | "0" => Init::Zeros,
        "iota" => Init::Iota,
        "rand" => Init::Rand(1),
        _ if s.starts_with("rand(") && s.ends_with(')') => {
            let seed = &s[5..s.len() - 1];
            Init::Rand(
                seed.trim()
                    .parse()
                    .with_context(|| format!("seed `{seed}` is not a number"))?,
            )
        }
        _ if s.starts_with('@') => Init::File(s[1..].to_string()),
        _ if s.starts_with('[') && s.ends_with(']') => Init::List(
            s[1..s.len() - 1]
                .split(',')
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
                .collect(),
        ),
        _ => Init::Fill(s.to_string()),
    })
}

/// A number as the little-endian bytes of `ty`.
pub fn value_bytes(text: &str, ty: ScalarType) -> Result<Vec<u8>> {
    let t = text.trim();
    let bad = || anyhow!("`{text}` is not a valid {ty} value");
    if ty.is_float() {
        let v: f64 = if let Some(h) = t.strip_prefix("0x") {
            // Raw bits.
            let bits = u64::from_str_radix(h, 16).map_err(|_| bad())?;
            return Ok(bits.to_le_bytes()[..ty.bytes() as usize].to_vec());
        } else {
            t.parse().map_err(|_| bad())?
        };
        return Ok(match ty {
            ScalarType::F64 => v.to_le_bytes().to_vec(),
            ScalarType::F32 => (v as f32).to_le_bytes().to_vec(),
            ScalarType::F16 => half::f16::from_f64(v).to_le_bytes().to_vec(),
            ScalarType::Bf16 => half::bf16::from_f64(v).to_le_bytes().to_vec(),
            _ => bail!("{ty} values cannot be given on the command line"),
        });
    }
    let (neg, digits) = match t.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, t),
    };
    let mag: u64 = if let Some(h) = digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).map_err(|_| bad())?
    } else {
        digits.parse().map_err(|_| bad())?
    };
    let bits = ty.bits();
    let v = if neg { mag.wrapping_neg() } else { mag };
    // Range check in the type's own signedness (bit types accept either).
    let fits = if bits >= 64 {
        !(neg && ty.kind() == ptxvk_runtime::translator::types::TypeKind::Unsigned)
    } else if neg {
        ty.kind() != ptxvk_runtime::translator::types::TypeKind::Unsigned
            && mag <= 1u64 << (bits - 1)
    } else {
        mag < 1u64 << bits
    };
    if !fits {
        bail!("{text} does not fit in {ty}");
    }
    Ok(v.to_le_bytes()[..ty.bytes() as usize].to_vec())
}

/// Deterministic pseudo-random bytes for `count` values of `ty`: floats uniform in [-1, 1),
/// integers uniform over all bit patterns.
pub fn random_bytes(ty: ScalarType, count: usize, seed: u64) -> Vec<u8> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let mut out = Vec::with_capacity(count * ty.bytes() as usize);
    for _ in 0..count {
        let r = next();
        let unit = (r >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
        match ty {
            ScalarType::F64 => out.extend_from_slice(&unit.to_le_bytes()),
            ScalarType::F32 => out.extend_from_slice(&(unit as f32).to_le_bytes()),
            ScalarType::F16 => out.extend_from_slice(&half::f16::from_f64(unit).to_le_bytes()),
            ScalarType::Bf16 => out.extend_from_slice(&half::bf16::from_f64(unit).to_le_bytes()),
            _ => out.extend_from_slice(&r.to_le_bytes()[..ty.bytes() as usize]),
        }
    }
    out
}

/// A buffer argument's initial bytes. A size past the device's memory (`max_bytes`), or one the
/// host cannot allocate, is an error before anything is allocated.
pub fn init_bytes(
    ty: ScalarType,
    count: Option<usize>,
    init: &Init,
    max_bytes: u64,
) -> Result<Vec<u8>> {
    let size = ty.bytes() as usize;
    if let Some(n) = count {
        let fits = n
            .checked_mul(size)
            .filter(|&b| b as u64 <= max_bytes)
            .ok_or_else(|| {
                anyhow!("{n} {ty} values are more than the device's {max_bytes} bytes of memory")
            })?;
        let mut probe: Vec<u8> = Vec::new();
        probe
            .try_reserve_exact(fits)
            .map_err(|_| anyhow!("cannot allocate {fits} bytes on the host for {n} {ty} values"))?;
    }
    Ok(match init {
        Init::Zeros => vec![0; count.unwrap_or(0) * size],
        Init::Iota => (0..count.unwrap_or(0))
            .map(|i| {
                let text = if ty.is_float() {
                    format!("{i}.0")
                } else {
                    i.to_string()
                };
                value_bytes(&text, ty)
            })
            .collect::<Result<Vec<_>>>()?
            .concat(),
        Init::Rand(seed) => random_bytes(ty, count.unwrap_or(0), *seed),
        Init::Fill(v) => value_bytes(v, ty)?.repeat(count.unwrap_or(0)),
        Init::List(vals) => {
            if let Some(c) = count
                && c != vals.len()
            {
                bail!("{} values listed for {} elements", vals.len(), c);
            }
            vals.iter()
                .map(|v| value_bytes(v, ty))
                .collect::<Result<Vec<_>>>()?
                .concat()
        }
        Init::File(path) => {
            let data = std::fs::read(path).with_context(|| format!("cannot read `{path}`"))?;
            if data.len() % size != 0 {
                bail!(
                    "`{path}` holds {} bytes, not a whole number of {ty} values",
                    data.len()
                );
            }
            if let Some(c) = count
                && c * size != data.len()
            {
                bail!(
                    "`{path}` holds {} values, {} expected",
                    data.len() / size,
                    c
                );
            }
            data
        }
    })
}

/// Formats one element for display.
pub fn format_value(bytes: &[u8], ty: ScalarType) -> String {
    let mut b8 = [0u8; 8];
    b8[..bytes.len()].copy_from_slice(bytes);
    let raw = u64::from_le_bytes(b8);
    let bits = ty.bits();
    match ty {
        ScalarType::F64 => format!("{}", f64::from_bits(raw)),
        ScalarType::F32 => format!("{}", f32::from_bits(raw as u32)),
        ScalarType::F16 => format!("{}", half::f16::from_bits(raw as u16)),
        ScalarType::Bf16 => format!("{}", half::bf16::from_bits(raw as u16)),
        t if t.is_signed() => {
            let shift = 64 - bits;
            format!("{}", ((raw << shift) as i64) >> shift)
        }
        t if t.kind() == ptxvk_runtime::translator::types::TypeKind::Bits => {
            format!("0x{raw:0w$x}", w = (bits / 4) as usize)
        }
        _ => format!("{raw}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_specs() {
        assert_eq!(
            parse_arg("x=f32[1000]:rand").unwrap(),
            ArgSpec::Buffer {
                name: Some("x".into()),
                ty: ScalarType::F32,
                count: Some(1000),
                init: Init::Rand(1)
            }
        );
        assert_eq!(
            parse_arg("u32[4]:[1, 2,3,4]").unwrap(),
            ArgSpec::Buffer {
                name: None,
                ty: ScalarType::U32,
                count: Some(4),
                init: Init::List(vec!["1".into(), "2".into(), "3".into(), "4".into()])
            }
        );
        assert!(matches!(
            parse_arg("f32[]:@a.bin").unwrap(),
            ArgSpec::Buffer {
                init: Init::File(_),
                ..
            }
        ));
        assert!(parse_arg("f32[]:iota").is_err());
        assert!(parse_arg("q32[4]").is_err());
    }

    #[test]
    fn scalars() {
        assert_eq!(
            parse_arg("2.5").unwrap(),
            ArgSpec::Scalar {
                ty: None,
                text: "2.5".into()
            }
        );
        assert_eq!(
            parse_arg("s32:-3").unwrap(),
            ArgSpec::Scalar {
                ty: Some(ScalarType::S32),
                text: "-3".into()
            }
        );
        assert_eq!(value_bytes("-1", ScalarType::S32).unwrap(), vec![0xff; 4]);
        assert_eq!(value_bytes("0x10", ScalarType::U16).unwrap(), vec![0x10, 0]);
        assert_eq!(
            value_bytes("1.5", ScalarType::F32).unwrap(),
            1.5f32.to_le_bytes()
        );
        assert!(value_bytes("-1", ScalarType::U32).is_err());
        assert!(value_bytes("70000", ScalarType::U16).is_err());
        assert!(value_bytes("abc", ScalarType::F32).is_err());
    }

    #[test]
    fn dims() {
        assert_eq!(parse_dims("4").unwrap(), [4, 1, 1]);
        assert_eq!(parse_dims("4,2,3").unwrap(), [4, 2, 3]);
        assert!(parse_dims("4,2,3,1").is_err());
        assert!(parse_dims("x").is_err());
    }
}
