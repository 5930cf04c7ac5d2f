//! Hash maps keyed by variables (or anything whose hash is one unique id):
//! the id already is a good hash, so hashing it again with SipHash, the
//! standard maps' default, only costs time on the hot paths of analyses.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A hasher for keys that hash as one unique integer ([`crate::Var`], a
/// node's identity, or a type whose `Hash` writes one variable's id): it
/// spreads the id's bits with one multiplication instead of hashing it.
#[derive(Default)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        // The product's high half folded into its low bits: keys that are
        // node addresses (multiples of 16) would otherwise all land in
        // every sixteenth bucket of a table that indexes by the low bits.
        let x = self.0.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        x ^ (x >> 32)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | b as u64;
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
    fn write_usize(&mut self, v: usize) {
        self.0 = v as u64;
    }
}

/// A map keyed by variables, hashed by their ids.
///
/// ```
/// let x = arith::Var::new("x");
/// let mut m: arith::IdMap<arith::Var, i64> = Default::default();
/// m.insert(x.clone(), 3);
/// assert_eq!(m[&x], 3);
/// ```
pub type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// A set of variables, hashed by their ids.
pub type IdSet<K> = HashSet<K, BuildHasherDefault<IdHasher>>;
