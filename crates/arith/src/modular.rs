//! Modular facts `value = coeff * k + base` for some integer `k` (TVM's
//! `ModularSet`, Halide's `ModulusRemainder`).
//!
//! `coeff == 0` means the value is exactly `base`; `coeff == 1` (with base 0)
//! means nothing is known. `base` is always in `[0, coeff)` when `coeff > 0`.

use crate::num::gcd;

/// The alignment of an integer expression.
///
/// ```
/// use arith::Modular;
/// let four_k_plus_one = Modular::new(4, 1);
/// let six_k = Modular::new(6, 0);
/// assert_eq!(four_k_plus_one.add(six_k), Modular::new(2, 1));
/// assert_eq!(Modular::new(4, 1).mul(Modular::exact(3)), Modular::new(12, 3));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Modular {
    /// The stride, `>= 0`.
    pub coeff: i64,
    /// The offset, in `[0, coeff)` when `coeff > 0`.
    pub base: i64,
}

impl Modular {
    /// Nothing known.
    pub const EVERYTHING: Modular = Modular { coeff: 1, base: 0 };

    /// `coeff * k + base`, normalised.
    pub fn new(coeff: i64, base: i64) -> Modular {
        let coeff = coeff.checked_abs().unwrap_or(1);
        if coeff == 0 {
            return Modular { coeff: 0, base };
        }
        Modular {
            coeff,
            base: base.rem_euclid(coeff),
        }
    }

    /// Exactly `v`.
    pub fn exact(v: i64) -> Modular {
        Modular { coeff: 0, base: v }
    }

    /// The value, when it is a single known one.
    pub fn as_exact(self) -> Option<i64> {
        (self.coeff == 0).then_some(self.base)
    }

    /// Facts about `a + b`.
    pub fn add(self, o: Modular) -> Modular {
        if self.coeff == 1 || o.coeff == 1 {
            return Modular::EVERYTHING;
        }
        let c = gcd(self.coeff, o.coeff);
        match self.base.checked_add(o.base) {
            Some(b) => Modular::new(c, b),
            None => Modular::EVERYTHING,
        }
    }

    /// Facts about `-a`.
    pub fn neg(self) -> Modular {
        match self.base.checked_neg() {
            Some(b) => Modular::new(self.coeff, b),
            None => Modular::EVERYTHING,
        }
    }

    /// Facts about `a - b`.
    pub fn sub(self, o: Modular) -> Modular {
        self.add(o.neg())
    }

    /// Facts about `a * b`.
    pub fn mul(self, o: Modular) -> Modular {
        // Scaling by a known value keeps the structure exactly.
        if let Some(k) = o.as_exact().or(self.as_exact()) {
            let m = if o.coeff == 0 { self } else { o };
            return match (m.coeff.checked_mul(k), m.base.checked_mul(k)) {
                (Some(c), Some(b)) => Modular::new(c, b),
                _ => Modular::EVERYTHING,
            };
        }
        if self.coeff == 1 && self.base == 0 && o.coeff == 1 {
            return Modular::EVERYTHING;
        }
        // (c1 k1 + b1)(c2 k2 + b2) = c1 c2 k1 k2 + c1 b2 k1 + c2 b1 k2 + b1 b2
        let (Some(cc), Some(cb), Some(bc), Some(bb)) = (
            self.coeff.checked_mul(o.coeff),
            self.coeff.checked_mul(o.base),
            o.coeff.checked_mul(self.base),
            self.base.checked_mul(o.base),
        ) else {
            return Modular::EVERYTHING;
        };
        Modular::new(gcd(gcd(cc, cb), bc), bb)
    }

    /// Facts about `a // c` for a constant `c != 0`.
    pub fn floor_div_const(self, c: i64) -> Modular {
        if c == 0 {
            return Modular::EVERYTHING;
        }
        if self.coeff == 0 {
            return match crate::num::floor_div(self.base, c) {
                Ok(v) => Modular::exact(v),
                Err(_) => Modular::EVERYTHING,
            };
        }
        if c > 0 && self.coeff % c == 0 {
            // (coeff k + base) // c = (coeff / c) k + base // c, exactly.
            return Modular::new(self.coeff / c, self.base.div_euclid(c));
        }
        Modular::EVERYTHING
    }

    /// Facts about `a % c` for a constant `c != 0`.
    pub fn floor_mod_const(self, c: i64) -> Modular {
        if c == 0 {
            return Modular::EVERYTHING;
        }
        if self.coeff == 0 {
            return match crate::num::floor_mod(self.base, c) {
                Ok(v) => Modular::exact(v),
                Err(_) => Modular::EVERYTHING,
            };
        }
        if c > 0 {
            let g = gcd(self.coeff, c);
            if g == c {
                return Modular::exact(self.base.rem_euclid(c));
            }
            return Modular::new(g, self.base);
        }
        Modular::EVERYTHING
    }

    /// Facts true of both (for `select`, `min`, `max`).
    pub fn union(self, o: Modular) -> Modular {
        let d = match o.base.checked_sub(self.base) {
            Some(d) => d,
            None => return Modular::EVERYTHING,
        };
        Modular::new(gcd(gcd(self.coeff, o.coeff), d), self.base)
    }
}
