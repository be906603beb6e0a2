//! Just enough of ELF64 (little-endian) for `ptxvk exec` to tell how a program uses CUDA: its
//! section names and the libraries it needs (DT_NEEDED).

pub struct Elf {
    pub sections: Vec<String>,
    pub needed: Vec<String>,
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

fn c_str(b: &[u8], at: usize) -> Option<String> {
    let rest = b.get(at..)?;
    let end = rest.iter().position(|&c| c == 0)?;
    Some(String::from_utf8_lossy(&rest[..end]).into_owned())
}

struct Section {
    name: u32,
    kind: u32,
    offset: usize,
    size: usize,
    link: u32,
}

/// `None` for anything but a well-formed 64-bit little-endian ELF file (a script, another
/// format): `ptxvk exec` then runs it without looking further.
pub fn read(b: &[u8]) -> Option<Elf> {
    if b.get(..6)? != b"\x7fELF\x02\x01" {
        return None;
    }
    let shoff = usize::try_from(u64_at(b, 0x28)?).ok()?;
    let shentsize = usize::from(u16_at(b, 0x3a)?);
    let shnum = usize::from(u16_at(b, 0x3c)?);
    let shstrndx = usize::from(u16_at(b, 0x3e)?);
    if shentsize < 0x30 {
        return None;
    }
    let sections: Vec<Section> = (0..shnum)
        .map(|i| {
            let at = shoff.checked_add(i.checked_mul(shentsize)?)?;
            Some(Section {
                name: u32_at(b, at)?,
                kind: u32_at(b, at + 4)?,
                offset: usize::try_from(u64_at(b, at + 0x18)?).ok()?,
                size: usize::try_from(u64_at(b, at + 0x20)?).ok()?,
                link: u32_at(b, at + 0x28)?,
            })
        })
        .collect::<Option<_>>()?;
    let names = sections.get(shstrndx)?.offset;
    let mut out = Elf {
        sections: Vec::new(),
        needed: Vec::new(),
    };
    for s in &sections {
        out.sections
            .push(c_str(b, names.checked_add(s.name as usize)?)?);
        // SHT_DYNAMIC: (tag, value) pairs; DT_NEEDED (1) names a string of the linked table.
        if s.kind == 6 {
            let strings = sections.get(s.link as usize)?.offset;
            for entry in b
                .get(s.offset..s.offset.checked_add(s.size)?)?
                .chunks_exact(16)
            {
                let tag = u64_at(entry, 0)?;
                if tag == 0 {
                    break;
                }
                if tag == 1 {
                    let at = strings.checked_add(usize::try_from(u64_at(entry, 8)?).ok()?)?;
                    out.needed.push(c_str(b, at)?);
                }
            }
        }
    }
    Some(out)
}
