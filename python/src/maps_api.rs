//! `rangefinder.IndexingMap`: XLA's indexing maps, parsed from and printed
//! in XLA's text form.

use crate::error::{error, error_at};
use pyo3::prelude::*;

/// Domain points compared exactly by `==` before sampling takes over.
const EXACT_COMPARISON_LIMIT: u64 = 1 << 16;

/// Dimension points `==` samples, looking for a difference, when the
/// domain is too large to enumerate and the simplified maps differ.
const SAMPLED_POINTS: usize = 4096;

/// Registers the class on `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<IndexingMap>()
}

/// An XLA indexing map: `(d0, d1)[s0] -> (d0 + s0, d1), domain: ...`.
///
/// Maps are values: `simplify` and `compose` return new maps. `==` is
/// semantic: the same domain and the same results at every point. Domains
/// of up to 65,536 points are enumerated; beyond, maps whose simplified
/// forms are identical are equal, a sampled point where they differ makes
/// them unequal, and when neither shows `==` raises `rangefinder.Error`
/// rather than guess.
#[pyclass(
    frozen,
    skip_from_py_object,
    name = "IndexingMap",
    module = "rangefinder"
)]
#[derive(Clone)]
pub struct IndexingMap {
    pub map: indexing::IndexingMap,
    /// The instruction, operand and shapes the map was analysed for, when
    /// it came from `rangefinder.hlo.analyze` (its picture uses them).
    pub scene: Option<picture::MapScene>,
}

impl IndexingMap {
    /// A map without an instruction behind it.
    pub fn alone(map: indexing::IndexingMap) -> IndexingMap {
        IndexingMap { map, scene: None }
    }
}

#[pymethods]
impl IndexingMap {
    /// Parses XLA's text form; a syntax error points into the text.
    #[new]
    fn py_new(py: Python<'_>, text: &str) -> PyResult<IndexingMap> {
        indexing::IndexingMap::parse(text)
            .map(IndexingMap::alone)
            .map_err(|e| error_at(py, text, &e.message, e.span))
    }

    /// Same as the constructor.
    #[staticmethod]
    fn parse(py: Python<'_>, text: &str) -> PyResult<IndexingMap> {
        IndexingMap::py_new(py, text)
    }

    /// The simplified map (results, constraints and ranges).
    fn simplify(&self) -> IndexingMap {
        let mut map = self.map.clone();
        map.simplify();
        IndexingMap::alone(map)
    }

    /// `self ∘ producer`: this map's results fed into `producer`'s
    /// dimensions (XLA's `ComposeIndexingMaps(self, producer)`).
    fn compose(&self, producer: &IndexingMap) -> PyResult<IndexingMap> {
        indexing::compose(&self.map, &producer.map)
            .map(IndexingMap::alone)
            .map_err(|e| error(e.message))
    }

    /// The results at a point: dimension values, then symbol values.
    #[pyo3(signature = (dims, symbols=Vec::new()))]
    fn evaluate(&self, dims: Vec<i64>, symbols: Vec<i64>) -> PyResult<Vec<i64>> {
        if dims.len() != self.map.num_dims() || symbols.len() != self.map.num_symbols() {
            return Err(error(format!(
                "the map takes {} dimensions and {} symbols, got {} and {}",
                self.map.num_dims(),
                self.map.num_symbols(),
                dims.len(),
                symbols.len()
            )));
        }
        let point: Vec<i64> = dims.into_iter().chain(symbols).collect();
        self.map.evaluate(&point).map_err(|e| error(e.message))
    }

    /// Whether the map is known to have an empty domain.
    #[getter]
    fn is_known_empty(&self) -> bool {
        self.map.is_known_empty()
    }

    #[getter]
    fn num_dims(&self) -> usize {
        self.map.num_dims()
    }

    #[getter]
    fn num_symbols(&self) -> usize {
        self.map.num_symbols()
    }

    #[getter]
    fn num_results(&self) -> usize {
        self.map.num_results()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(other) = other.extract::<PyRef<'_, IndexingMap>>() else {
            return Ok(false);
        };
        equal(&self.map, &other.map)
    }

    /// The picture of one element and the elements it reads, as SVG text.
    /// `at` is the element: a list of indices, a dict `{"d0": 1}` or a
    /// string `"d0=1,d1=2"`; axes not given take their middle index. A map
    /// from `rangefinder.hlo.analyze` (output-to-input) is drawn over the
    /// instruction's output and operand shapes; any other map over the
    /// ranges of its dimensions (the output) and of its results (the input).
    #[pyo3(signature = (at=None))]
    fn svg(&self, at: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
        let mut scene = match &self.scene {
            Some(s) => s.clone(),
            None => picture::map_scene(&self.map, None),
        };
        scene.choose_hint = "svg(at=...)".to_string();
        let at = match at {
            None => None,
            Some(a) => Some(element(a, &scene.output_shape)?),
        };
        picture::map_picture(&scene, at.as_deref())
            .map(|d| d.svg)
            .map_err(|e| error(e.message))
    }

    /// Jupyter's picture of the map: `svg()` at the middle element.
    fn _repr_svg_(&self) -> PyResult<String> {
        self.svg(None)
    }

    fn __str__(&self) -> String {
        self.map.to_string()
    }

    fn __repr__(&self) -> String {
        format!("IndexingMap({:?})", self.map.to_string())
    }
}

/// The element `at` names: a string `d0=1,d1=2`, a dict `{"d0": 1}` or a
/// sequence of indices.
fn element(at: &Bound<'_, PyAny>, shape: &[i64]) -> PyResult<Vec<i64>> {
    let specs: Vec<String> = if let Ok(text) = at.extract::<String>() {
        vec![text]
    } else if let Ok(dict) = at.cast::<pyo3::types::PyDict>() {
        let mut specs = Vec::new();
        for (k, v) in dict.iter() {
            specs.push(format!("{}={}", k.str()?, v.str()?));
        }
        specs
    } else if let Ok(values) = at.extract::<Vec<i64>>() {
        return Ok(values);
    } else {
        return Err(error(
            "at is a list of indices, a dict {\"d0\": 1} or a string \"d0=1,d1=2\"",
        ));
    };
    picture::parse_at(&specs, shape).map_err(|e| error(format!("at: {}", e.message)))
}

/// Whether two maps are the same relation: exactly by enumeration on small
/// domains; beyond, equal when their simplified forms are identical (sound:
/// simplification preserves the relation), unequal when a sampled point
/// differs, and an error when neither decides.
fn equal(a: &indexing::IndexingMap, b: &indexing::IndexingMap) -> PyResult<bool> {
    if a.to_string() == b.to_string() {
        return Ok(true);
    }
    // An error here is a domain too large to enumerate (anything else
    // fails again below, and is reported there).
    if let Ok(r) = indexing::semantically_equal(a, b, EXACT_COMPARISON_LIMIT) {
        return Ok(r);
    }
    let (mut sa, mut sb) = (a.clone(), b.clone());
    sa.simplify();
    sb.simplify();
    if sa.to_string() == sb.to_string() {
        return Ok(true);
    }
    let sampled = indexing::semantically_equal_sampled(
        &sa,
        &sb,
        SAMPLED_POINTS,
        0x5eed,
        EXACT_COMPARISON_LIMIT,
    )
    .map_err(|e| error(e.message))?;
    if !sampled {
        return Ok(false);
    }
    Err(error(format!(
        "cannot decide whether the maps are equal: the domains have more than \
         {EXACT_COMPARISON_LIMIT} points to enumerate, the simplified forms differ \
         (`{sa}` and `{sb}`), and none of {SAMPLED_POINTS} sampled points tells them apart; \
         compare them on smaller domains"
    )))
}
