//! Dense row-major tensors of numbers: the interpreter's inputs and outputs.

use std::fmt;

/// A dense row-major array of `f64`. Integer buffers hold integral values.
///
/// ```
/// use tir::Tensor;
/// let t = Tensor::from_fn(&[2, 3], |ix| (ix[0] * 10 + ix[1]) as f64);
/// assert_eq!(t.get(&[1, 2]), Some(12.0));
/// assert_eq!(t.get(&[2, 0]), None);
/// assert_eq!(t.data(), &[0.0, 1.0, 2.0, 10.0, 11.0, 12.0]);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    shape: Vec<usize>,
    data: Vec<f64>,
}

/// The error of building a tensor whose data does not fit its shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeMismatch {
    /// The shape asked for.
    pub shape: Vec<usize>,
    /// How many elements were given.
    pub len: usize,
}

impl fmt::Display for ShapeMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a tensor of shape {:?} needs {} elements, but {} were given",
            self.shape,
            element_count(&self.shape).map_or_else(|| "too many".to_string(), |n| n.to_string()),
            self.len
        )
    }
}

impl std::error::Error for ShapeMismatch {}

fn element_count(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

impl Tensor {
    /// A tensor of `shape` holding `data` in row-major order.
    pub fn new(shape: Vec<usize>, data: Vec<f64>) -> Result<Tensor, ShapeMismatch> {
        if element_count(&shape) != Some(data.len()) {
            return Err(ShapeMismatch {
                shape,
                len: data.len(),
            });
        }
        Ok(Tensor { shape, data })
    }

    /// A tensor of zeros.
    ///
    /// # Panics
    /// When the element count overflows `usize`.
    pub fn zeros(shape: &[usize]) -> Tensor {
        let n = element_count(shape).expect("tensor element count overflows usize");
        Tensor {
            shape: shape.to_vec(),
            data: vec![0.0; n],
        }
    }

    /// A tensor whose element at each index tuple is `f(index)`.
    ///
    /// # Panics
    /// When the element count overflows `usize`.
    pub fn from_fn(shape: &[usize], mut f: impl FnMut(&[usize]) -> f64) -> Tensor {
        let n = element_count(shape).expect("tensor element count overflows usize");
        let mut data = Vec::with_capacity(n);
        let mut ix = vec![0usize; shape.len()];
        for _ in 0..n {
            data.push(f(&ix));
            // Row-major odometer: the last axis moves fastest.
            for k in (0..shape.len()).rev() {
                ix[k] += 1;
                if ix[k] < shape[k] {
                    break;
                }
                ix[k] = 0;
            }
        }
        Tensor {
            shape: shape.to_vec(),
            data,
        }
    }

    /// The size of each axis.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The elements in row-major order.
    pub fn data(&self) -> &[f64] {
        &self.data
    }

    /// The elements, mutably.
    pub fn data_mut(&mut self) -> &mut [f64] {
        &mut self.data
    }

    /// The same elements under another shape with as many elements (row-major
    /// order is kept, so a flattened buffer's tensor is a reshape).
    pub fn reshape(&self, shape: Vec<usize>) -> Result<Tensor, ShapeMismatch> {
        Tensor::new(shape, self.data.clone())
    }

    /// The row-major position of `index`, if it is inside the shape.
    pub fn offset(&self, index: &[usize]) -> Option<usize> {
        if index.len() != self.shape.len() {
            return None;
        }
        let mut off = 0usize;
        for (&i, &d) in index.iter().zip(&self.shape) {
            if i >= d {
                return None;
            }
            off = off * d + i;
        }
        Some(off)
    }

    /// The element at `index`, if it is inside the shape.
    pub fn get(&self, index: &[usize]) -> Option<f64> {
        self.offset(index).map(|o| self.data[o])
    }
}
