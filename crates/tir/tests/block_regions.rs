//! The regions a block declares (`complete_regions`) against enumeration:
//! for random accesses through loops inside a block, every element touched
//! at every value of the block's variable lies in the region, and for
//! affine accesses the region is exactly the hull of what is touched.

use arith::{Expr, Range, Var};
use proptest::prelude::*;
use tir::block::{complete_regions, Block, BlockIterVar, BlockStmt, IterKind};
use tir::{Buffer, DataType, ForKind, Value};

/// One index: `a*v + b*j + c*k + d`, then optionally `// q` or `% q`.
#[derive(Clone, Debug)]
struct Index {
    coeffs: [i64; 3],
    offset: i64,
    wrap: Option<(bool, i64)>,
}

impl Index {
    fn expr(&self, v: &Var, j: &Var, k: &Var) -> Expr {
        let [a, b, c] = self.coeffs;
        let sum = Expr::add(
            Expr::add(
                Expr::add(
                    Expr::mul(v.expr(), Expr::int(a)),
                    Expr::mul(j.expr(), Expr::int(b)),
                ),
                Expr::mul(k.expr(), Expr::int(c)),
            ),
            Expr::int(self.offset),
        );
        match self.wrap {
            None => sum,
            Some((true, q)) => Expr::floor_div(sum, Expr::int(q)),
            Some((false, q)) => Expr::floor_mod(sum, Expr::int(q)),
        }
    }

    fn value(&self, v: i64, j: i64, k: i64) -> i64 {
        let [a, b, c] = self.coeffs;
        let sum = a * v + b * j + c * k + self.offset;
        match self.wrap {
            None => sum,
            Some((true, q)) => sum.div_euclid(q),
            Some((false, q)) => sum.rem_euclid(q),
        }
    }
}

fn index() -> impl Strategy<Value = Index> {
    (
        [0i64..4, -2i64..4, -2i64..3],
        0i64..6,
        prop::option::of((any::<bool>(), 2i64..5)),
    )
        .prop_map(|(coeffs, offset, wrap)| Index {
            coeffs,
            offset,
            wrap,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn regions_hold_every_access(
        reads in prop::collection::vec((index(), index()), 1..3),
        e1 in 1i64..4,
        e2 in 1i64..4,
    ) {
        let (v, j, k) = (Var::new("v"), Var::new("j"), Var::new("k"));
        let a = Buffer::new("A", DataType::Float32, [64i64, 64]);
        let b = Buffer::new("B", DataType::Float32, [4i64]);
        let value = reads
            .iter()
            .map(|(x, y)| Value::load(&a, [x.expr(&v, &j, &k), y.expr(&v, &j, &k)]))
            .reduce(|p, q| p + q)
            .unwrap();
        let body = BlockStmt::For {
            var: j.clone(),
            min: Expr::int(0),
            extent: Expr::int(e1),
            kind: ForKind::Serial,
            body: Box::new(BlockStmt::For {
                var: k.clone(),
                min: Expr::int(0),
                extent: Expr::int(e2),
                kind: ForKind::Serial,
                body: Box::new(BlockStmt::store(&b, [v.expr()], value)),
            }),
        };
        let dom = Range::from_extent(Expr::int(4));
        let mut block = Block::new("L", vec![BlockIterVar::new(&v, dom, IterKind::Spatial)], body);
        complete_regions(&mut block, &[a.clone(), b.clone()]);
        prop_assert_eq!(block.reads.len(), 1);
        let region = &block.reads[0].region;
        let affine = reads.iter().all(|(x, y)| x.wrap.is_none() && y.wrap.is_none());
        for vv in 0..4 {
            let at = |e: &Expr| e.eval_with(&[(&v, vv)]).unwrap();
            for (d, r) in region.iter().enumerate() {
                let (lo, ext) = (at(&r.min), at(&r.extent));
                let touched: Vec<i64> = reads
                    .iter()
                    .flat_map(|(x, y)| {
                        let ix = if d == 0 { x.clone() } else { y.clone() };
                        (0..e1).flat_map(move |jj| {
                            let ix = ix.clone();
                            (0..e2).map(move |kk| ix.value(vv, jj, kk))
                        })
                    })
                    .collect();
                let (min, max) = (*touched.iter().min().unwrap(), *touched.iter().max().unwrap());
                prop_assert!(lo <= min && max < lo + ext,
                    "axis {} at v = {}: [{}, {}) does not hold [{}, {}]", d, vv, lo, lo + ext, min, max);
                if affine {
                    prop_assert_eq!((lo, lo + ext - 1), (min, max), "axis {} at v = {}", d, vv);
                }
            }
        }
    }
}
