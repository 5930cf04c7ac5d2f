//! Random layout maps made the way layouts are made: tiling (a split),
//! packing (a split whose inner digits move last), padding (an offset
//! before a split), reversal (of a logical index, of a final index, or of
//! an intermediate one before it is fused), transposition and
//! fuse-then-split, composed over small constant shapes. Each step is
//! injective, so every map generated is; [`check`] verifies a map by
//! enumeration and [`drop_one`] makes a variant that may collide.
//!
//! The generator reads its decisions from `choose(n)` (a value in
//! `[0, n)`), so proptest can drive it and a plain seeded generator can
//! build a reproducible corpus.
#![allow(dead_code)]

use arith::Var;
use layout::{for_each_point, ErrorKind, IndexMap, Layout};
use std::collections::{HashMap, HashSet};

/// A generated map and the logical shape it is for.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The lambda text.
    pub text: String,
    /// The logical shape.
    pub dims: Vec<i64>,
}

/// One index under construction: its text and a bound on its values
/// (`[0, extent)`), used as the radix when it is fused (the number of
/// values a remainder takes, not its divisor, so a fusion leaves no gaps).
#[derive(Clone, Debug)]
struct Axis {
    text: String,
    extent: i64,
}

fn reversed(a: &Axis) -> Axis {
    Axis {
        text: format!("{} - ({})", a.extent - 1, a.text),
        extent: a.extent,
    }
}

/// Builds one map from the decisions `choose` makes.
pub fn generate(choose: &mut dyn FnMut(u32) -> u32) -> Generated {
    let rank = 1 + choose(3) as usize;
    let dims: Vec<i64> = (0..rank).map(|_| 1 + choose(9) as i64).collect();
    let mut axes: Vec<Axis> = dims
        .iter()
        .enumerate()
        .map(|(k, &d)| {
            let a = Axis {
                text: format!("x{k}"),
                extent: d,
            };
            if choose(5) == 0 {
                reversed(&a)
            } else {
                a
            }
        })
        .collect();
    let steps = 1 + choose(4);
    for _ in 0..steps {
        let n = axes.len();
        let a = choose(n as u32) as usize;
        match choose(7) {
            // Tiling: split by a factor that may not divide.
            0 | 1 => {
                let f = 2 + choose(4) as i64;
                let e = axes.remove(a);
                axes.insert(
                    a,
                    Axis {
                        text: format!("({}) % {f}", e.text),
                        extent: f.min(e.extent),
                    },
                );
                axes.insert(
                    a,
                    Axis {
                        text: format!("({}) // {f}", e.text),
                        extent: (e.extent + f - 1) / f,
                    },
                );
            }
            // Packing: the inner digits go last.
            2 => {
                let f = 2 + choose(4) as i64;
                let e = axes.remove(a);
                axes.insert(
                    a,
                    Axis {
                        text: format!("({}) // {f}", e.text),
                        extent: (e.extent + f - 1) / f,
                    },
                );
                axes.push(Axis {
                    text: format!("({}) % {f}", e.text),
                    extent: f.min(e.extent),
                });
            }
            // Padding: an offset, then a split.
            3 => {
                let p = 1 + choose(3) as i64;
                let f = 2 + choose(3) as i64;
                let e = axes.remove(a);
                let shifted = format!("{} + {p}", e.text);
                let extent = e.extent + p;
                axes.insert(
                    a,
                    Axis {
                        text: format!("({shifted}) % {f}"),
                        extent: f.min(extent),
                    },
                );
                axes.insert(
                    a,
                    Axis {
                        text: format!("({shifted}) // {f}"),
                        extent: (extent + f - 1) / f,
                    },
                );
            }
            // Transpose two indices.
            4 => {
                let b = choose(n as u32) as usize;
                axes.swap(a, b);
            }
            // Fuse two indices (the first outer), then maybe split again.
            5 if n > 1 => {
                let b = (a + 1 + choose(n as u32 - 1) as usize) % n;
                let (hi, lo) = (axes[a].clone(), axes[b].clone());
                let fused = Axis {
                    text: format!("({}) * {} + ({})", hi.text, lo.extent, lo.text),
                    extent: hi.extent * lo.extent,
                };
                let (first, second) = (a.min(b), a.max(b));
                axes.remove(second);
                axes.remove(first);
                if choose(2) == 0 {
                    let f = 2 + choose(4) as i64;
                    axes.insert(
                        first,
                        Axis {
                            text: format!("({}) % {f}", fused.text),
                            extent: f.min(fused.extent),
                        },
                    );
                    axes.insert(
                        first,
                        Axis {
                            text: format!("({}) // {f}", fused.text),
                            extent: (fused.extent + f - 1) / f,
                        },
                    );
                } else {
                    axes.insert(first, fused);
                }
            }
            // Reverse an index.
            _ => {
                let r = reversed(&axes[a]);
                axes[a] = r;
            }
        }
    }
    let names: Vec<String> = (0..rank).map(|k| format!("x{k}")).collect();
    let items: Vec<&str> = axes.iter().map(|a| a.text.as_str()).collect();
    Generated {
        text: format!("lambda {}: [{}]", names.join(", "), items.join(", ")),
        dims,
    }
}

/// The map with one transformed index dropped (when it has two or more):
/// often no longer injective.
pub fn drop_one(g: &Generated, which: usize) -> Option<Generated> {
    let map = IndexMap::parse(&g.text).ok()?;
    let finals = map.final_indices();
    if finals.len() < 2 {
        return None;
    }
    let k = which % finals.len();
    let names: Vec<&str> = map.initial_indices().iter().map(|v| v.name()).collect();
    let items: Vec<String> = finals
        .iter()
        .enumerate()
        .filter(|(j, _)| *j != k)
        .map(|(_, e)| e.to_string())
        .collect();
    Some(Generated {
        text: format!("lambda {}: [{}]", names.join(", "), items.join(", ")),
        dims: g.dims.clone(),
    })
}

/// How a map fared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Injective, accepted, and every answer right by enumeration.
    Accepted,
    /// Not injective, refused with a true collision.
    RefusedWithWitness,
    /// Injective but refused (valid input refused).
    Refused(String),
    /// A wrong answer: the text says which.
    Wrong(String),
}

/// Checks `g` by enumeration: an injective map must be accepted with a
/// transformed shape that holds every image, an inverse that sends each
/// image back, a padding predicate true exactly off the image, and
/// distinct physical indices inside the physical shape; a map that is not
/// injective must be refused naming two indices with one image.
pub fn check(g: &Generated) -> Outcome {
    let map = match IndexMap::parse(&g.text) {
        Ok(m) => m,
        Err(e) => return Outcome::Wrong(format!("does not parse: {e}")),
    };
    let mut seen: HashMap<Vec<i64>, Vec<i64>> = HashMap::new();
    let mut collides = false;
    let mut negative = false;
    for_each_point(&g.dims, |x| {
        let t = map.map_point(x).expect("maps");
        negative |= t.iter().any(|&v| v < 0);
        collides |= seen.insert(t, x.to_vec()).is_some();
    });
    let shape = super::shape(&g.dims);
    let layout = Layout::new(shape.clone(), Some(map.clone()));
    if collides {
        return match layout {
            Ok(_) => Outcome::Wrong("accepted but not injective".into()),
            Err(e) if e.kind == ErrorKind::NotInjective => match map.find_collision(&shape) {
                Some(c)
                    if c.first != c.second
                        && map.map_point(&c.first).ok() == Some(c.image.clone())
                        && map.map_point(&c.second).ok() == Some(c.image.clone()) =>
                {
                    Outcome::RefusedWithWitness
                }
                _ => Outcome::Wrong(format!(
                    "refused as not injective without a true witness: {e}"
                )),
            },
            Err(e) => Outcome::Wrong(format!("not injective, refused without a witness: {e}")),
        };
    }
    if negative {
        // Negative transformed indices are an error, not a layout.
        return match layout {
            Err(e) if e.kind == ErrorKind::Negative => Outcome::RefusedWithWitness,
            Err(e) => Outcome::Wrong(format!("negative indices, other error: {e}")),
            Ok(_) => Outcome::Wrong("negative transformed indices accepted".into()),
        };
    }
    let l = match layout {
        Ok(l) => l,
        Err(e) => return Outcome::Refused(e.to_string()),
    };
    let Some(tshape) = l
        .transformed_shape()
        .iter()
        .map(|e| e.as_int())
        .collect::<Option<Vec<i64>>>()
    else {
        return Outcome::Wrong("symbolic transformed shape".into());
    };
    let pshape: Vec<i64> = l
        .physical_shape()
        .iter()
        .map(|e| e.as_int().unwrap_or(-1))
        .collect();
    let Some(inv) = l.inverse() else {
        return Outcome::Wrong("no inverse".into());
    };
    let mut physical = HashSet::new();
    for (t, x) in &seen {
        if !t.iter().zip(&tshape).all(|(v, e)| (0..*e).contains(v)) {
            return Outcome::Wrong(format!("{x:?} -> {t:?} outside {tshape:?}"));
        }
        if inv.map_point(t).ok().as_ref() != Some(x) {
            return Outcome::Wrong(format!("inverse at {t:?} is not {x:?}"));
        }
        let Ok(p) = l.physical_point(x) else {
            return Outcome::Wrong(format!("no physical index for {x:?}"));
        };
        if !p.iter().zip(&pshape).all(|(v, e)| (0..*e).contains(v)) || !physical.insert(p.clone()) {
            return Outcome::Wrong(format!("physical index {p:?} of {x:?}"));
        }
    }
    let vars: Vec<Var> = inv.initial_indices().to_vec();
    let mut wrong = None;
    let points: i64 = tshape.iter().product();
    if points > 1 << 16 {
        return Outcome::Wrong(format!("transformed shape {tshape:?} is too large"));
    }
    for_each_point(&tshape, |t| {
        if wrong.is_some() {
            return;
        }
        let padded = l
            .padding_predicate()
            .is_some_and(|p| super::eval_expr(p, &vars, t, &[]) != 0);
        if padded == seen.contains_key(t) {
            wrong = Some(format!("padding predicate at {t:?} says {padded}"));
        }
    });
    if let Some(w) = wrong {
        return Outcome::Wrong(w);
    }
    if l.is_bijective() != (seen.len() as i64 == points) {
        return Outcome::Wrong("bijective flag".into());
    }
    Outcome::Accepted
}

/// A seeded source of decisions (xorshift), for reproducible corpora.
pub struct Seeded(u64);

impl Seeded {
    /// A source from a nonzero seed.
    pub fn new(seed: u64) -> Seeded {
        Seeded(seed.max(1))
    }

    /// A value in `[0, n)`.
    pub fn choose(&mut self, n: u32) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % u64::from(n.max(1))) as u32
    }
}
