//! Smaller variants of a program, for minimising one that mismatches: each candidate differs
//! from the program by one edit (a statement dropped, a branch or loop replaced by its body, a
//! loop run once, an operand made a zero immediate, a starting value made zero).

use super::*;

impl Program {
    /// Every one-edit variant, the ones that drop the most first.
    pub fn shrink_candidates(&self) -> Vec<Program> {
        let mut out = Vec::new();
        for v in body_variants(&self.body) {
            out.push(Program {
                body: v,
                ..self.clone()
            });
        }
        for (i, f) in self.funcs.iter().enumerate() {
            for v in body_variants(&f.body) {
                let mut p = self.clone();
                p.funcs[i].body = v;
                out.push(p);
            }
        }
        for i in 0..NR as usize {
            if self.mul[i] != 0 {
                let mut p = self.clone();
                p.mul[i] = 0;
                out.push(p);
            }
            if self.add[i] != 0 {
                let mut p = self.clone();
                p.add[i] = 0;
                out.push(p);
            }
        }
        out
    }

    /// Statements in all of the program, nested ones and functions' included.
    pub fn size(&self) -> usize {
        count(&self.body) + self.funcs.iter().map(|f| count(&f.body)).sum::<usize>()
    }
}

fn count(body: &[Stmt]) -> usize {
    body.iter()
        .map(|s| match s {
            Stmt::If { then, els, .. }
            | Stmt::BlockIf { then, els, .. }
            | Stmt::WarpIf { then, els, .. } => 1 + count(then) + count(els),
            Stmt::Loop { body, .. } | Stmt::WarpLoop { body, .. } | Stmt::VoteLoop { body, .. } => {
                1 + count(body)
            }
            _ => 1,
        })
        .sum()
}

fn body_variants(body: &[Stmt]) -> Vec<Vec<Stmt>> {
    let mut out = Vec::new();
    let with = |i: usize, repl: Vec<Stmt>| {
        let mut v = body[..i].to_vec();
        v.extend(repl);
        v.extend_from_slice(&body[i + 1..]);
        v
    };
    // Halves first: big steps while they keep the mismatch.
    if body.len() >= 4 {
        out.push(body[body.len() / 2..].to_vec());
        out.push(body[..body.len() / 2].to_vec());
    }
    for i in 0..body.len() {
        out.push(with(i, Vec::new()));
    }
    for (i, s) in body.iter().enumerate() {
        match s {
            Stmt::If { then, els, .. }
            | Stmt::BlockIf { then, els, .. }
            | Stmt::WarpIf { then, els, .. } => {
                out.push(with(i, then.clone()));
                out.push(with(i, els.clone()));
                for t in body_variants(then) {
                    out.push(with(i, vec![with_arms(s, t, els.clone())]));
                }
                for e in body_variants(els) {
                    out.push(with(i, vec![with_arms(s, then.clone(), e)]));
                }
            }
            Stmt::Loop {
                trips,
                uniform,
                body: lb,
            } => {
                // A `break` of this loop would be left outside any loop, where the printer
                // drops it and the interpreter still ends the enclosing block.
                if !breaks_out(lb) {
                    out.push(with(i, lb.clone()));
                }
                if *trips > 1 {
                    out.push(with(
                        i,
                        vec![Stmt::Loop {
                            trips: 1,
                            uniform: *uniform,
                            body: lb.clone(),
                        }],
                    ));
                }
                for b in body_variants(lb) {
                    out.push(with(
                        i,
                        vec![Stmt::Loop {
                            trips: *trips,
                            uniform: *uniform,
                            body: b,
                        }],
                    ));
                }
            }
            Stmt::WarpLoop {
                trips,
                extra,
                odd,
                body: lb,
            } => {
                // No `break` leaves it, so its body stands on its own.
                out.push(with(i, lb.clone()));
                let warp_loop = |trips: u8, extra: u8, body: Vec<Stmt>| Stmt::WarpLoop {
                    trips,
                    extra,
                    odd: *odd,
                    body,
                };
                if *trips > 1 || *extra > 1 {
                    out.push(with(i, vec![warp_loop(1, 1, lb.clone())]));
                }
                for b in body_variants(lb) {
                    out.push(with(i, vec![warp_loop(*trips, *extra, b)]));
                }
            }
            Stmt::VoteLoop { r, body: lb } => {
                out.push(with(i, lb.clone()));
                for b in body_variants(lb) {
                    out.push(with(i, vec![Stmt::VoteLoop { r: *r, body: b }]));
                }
            }
            s => {
                for s2 in operand_variants(s) {
                    out.push(with(i, vec![s2]));
                }
            }
        }
    }
    out
}

/// The branch `s` with other arms.
fn with_arms(s: &Stmt, then: Vec<Stmt>, els: Vec<Stmt>) -> Stmt {
    match s {
        Stmt::If { p, neg, .. } => Stmt::If {
            p: *p,
            neg: *neg,
            then,
            els,
        },
        Stmt::BlockIf { odd, .. } => Stmt::BlockIf {
            odd: *odd,
            then,
            els,
        },
        Stmt::WarpIf { odd, .. } => Stmt::WarpIf {
            odd: *odd,
            then,
            els,
        },
        other => other.clone(),
    }
}

/// Whether `body` holds a `break` of the loop it is the body of: one not inside a nested loop.
fn breaks_out(body: &[Stmt]) -> bool {
    body.iter().any(|s| match s {
        Stmt::Break { .. } => true,
        Stmt::If { then, els, .. } => breaks_out(then) || breaks_out(els),
        _ => false,
    })
}

fn zero(s: Src) -> Option<Src> {
    match s {
        Src::Imm(0) => None,
        _ => Some(Src::Imm(0)),
    }
}

fn operand_variants(s: &Stmt) -> Vec<Stmt> {
    let mut out = Vec::new();
    match s.clone() {
        Stmt::Bin { b, .. } | Stmt::Setp { b, .. } | Stmt::Selp { b, .. } => {
            if let Some(z) = zero(b) {
                let mut s2 = s.clone();
                match &mut s2 {
                    Stmt::Bin { b, .. } | Stmt::Setp { b, .. } | Stmt::Selp { b, .. } => *b = z,
                    _ => {}
                }
                out.push(s2);
            }
        }
        Stmt::Mov { d, s: src } => {
            if let Some(z) = zero(src) {
                out.push(Stmt::Mov { d, s: z });
            }
        }
        Stmt::Tern { op, d, a, b, c } => {
            if let Some(z) = zero(b) {
                out.push(Stmt::Tern { op, d, a, b: z, c });
            }
            if let Some(z) = zero(c) {
                out.push(Stmt::Tern { op, d, a, b, c: z });
            }
        }
        Stmt::MovF { d, bits } if bits != 0 => out.push(Stmt::MovF { d, bits: 0 }),
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use arbitrary::Unstructured;

    use super::*;

    /// A `break` outside every loop: the printer drops it, the interpreter ends its block.
    fn stray_break(body: &[Stmt]) -> bool {
        body.iter().any(|s| match s {
            Stmt::Break { .. } => true,
            Stmt::If { then, els, .. } => stray_break(then) || stray_break(els),
            _ => false,
        })
    }

    fn has_stray_break(p: &Program) -> bool {
        stray_break(&p.body) || p.funcs.iter().any(|f| stray_break(&f.body))
    }

    /// No candidate leaves a `break` outside a loop, also where the `break` sits in a branch
    /// of the loop's body (which let the printed PTX and the interpreter disagree about a
    /// minimised program).
    #[test]
    fn candidates_keep_breaks_inside_loops() {
        let nested = Program {
            funcs: Vec::new(),
            mul: [0; NR as usize],
            add: [0; NR as usize],
            body: vec![Stmt::Loop {
                trips: 2,
                uniform: false,
                body: vec![
                    Stmt::If {
                        p: 0,
                        neg: false,
                        then: Vec::new(),
                        els: vec![Stmt::Break { p: 1, neg: false }],
                    },
                    Stmt::Mov {
                        d: 5,
                        s: Src::Imm(0),
                    },
                ],
            }],
            features: Features::DIFF,
        };
        let mut programs = vec![nested];
        for seed in 0..200 {
            let data = seeded_bytes(seed, 2048);
            let p = Program::generate(&mut Unstructured::new(&data), Features::DIFF)
                .expect("enough bytes");
            assert!(!has_stray_break(&p), "seed {seed} generates a stray break");
            programs.push(p);
        }
        for p in &programs {
            for c in p.shrink_candidates() {
                assert!(!has_stray_break(&c), "{}", c.to_ptx());
            }
        }
    }
}
