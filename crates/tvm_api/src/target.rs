//! `tvm.target.Target`: what a schedule is written for. A target changes
//! no bound; programs read its kind, keys and thread limits to choose a
//! schedule, and enter it with `with` so that `Target.current()` sees it.

use crate::error::{ApiError, ApiResult};
use std::fmt;

/// A compilation target: a kind (`llvm`, `cuda`), its keys and attributes.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// The kind's name (`target.kind.name`).
    pub kind: String,
    /// The keys (`["cuda", "gpu"]`, `["cpu"]`).
    pub keys: Vec<String>,
    /// The attributes, by name in name order (`-mcpu=...`, TVM's defaults
    /// such as `max_num_threads`).
    pub attrs: Vec<(String, AttrValue)>,
}

/// The value of a target attribute.
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    /// An integer (`max_num_threads`).
    Int(i64),
    /// A string (`mcpu`).
    Str(String),
    /// A flag given without a value (`-libs`-style options).
    Flag,
}

impl fmt::Display for AttrValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttrValue::Int(v) => write!(f, "{v}"),
            AttrValue::Str(s) => f.write_str(s),
            AttrValue::Flag => f.write_str("1"),
        }
    }
}

/// A target kind: name, default keys, and the GPU limits TVM gives it
/// (`max_num_threads`, `thread_warp_size`).
type Kind = (&'static str, &'static [&'static str], Option<(i64, i64)>);

/// The kinds rangefinder knows.
const KINDS: &[Kind] = &[
    ("llvm", &["cpu"], None),
    ("c", &["cpu"], None),
    ("cuda", &["cuda", "gpu"], Some((1024, 32))),
    ("nvptx", &["cuda", "gpu"], Some((1024, 32))),
    ("rocm", &["rocm", "gpu"], Some((256, 64))),
    ("opencl", &["opencl", "gpu"], Some((256, 1))),
    ("metal", &["metal", "gpu"], Some((256, 32))),
    ("vulkan", &["vulkan", "gpu"], Some((256, 1))),
];

impl Target {
    /// Parses TVM's target text: `"llvm"`, `"cuda"`, `"llvm -mcpu=skylake"`,
    /// `"llvm -keys=arm_cpu -device=arm_cpu"`.
    pub fn parse(text: &str) -> ApiResult<Target> {
        let mut words = text.split_whitespace();
        let kind = words.next().ok_or_else(|| {
            ApiError::new(
                crate::ErrorClass::ValueError,
                "a target needs a kind such as \"llvm\" or \"cuda\"",
            )
        })?;
        let Some((_, default_keys, gpu)) = KINDS.iter().find(|(k, ..)| *k == kind) else {
            let known: Vec<&str> = KINDS.iter().map(|(k, ..)| *k).collect();
            return Err(ApiError::new(
                crate::ErrorClass::ValueError,
                format!(
                    "target kind \"{kind}\" is not defined; rangefinder knows {}",
                    known.join(", ")
                ),
            ));
        };
        let mut keys: Vec<String> = Vec::new();
        let mut attrs: Vec<(String, AttrValue)> = Vec::new();
        if let Some((threads, warp)) = gpu {
            attrs.push(("max_num_threads".into(), AttrValue::Int(*threads)));
            attrs.push(("thread_warp_size".into(), AttrValue::Int(*warp)));
        }
        for word in words {
            let option = word.strip_prefix('-').map(|w| w.trim_start_matches('-'));
            let Some(option) = option.filter(|o| !o.is_empty()) else {
                return Err(ApiError::new(
                    crate::ErrorClass::ValueError,
                    format!("target option `{word}` must be written `-name=value`"),
                ));
            };
            let (name, value) = match option.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (option, None),
            };
            if name == "keys" {
                keys.extend(value.unwrap_or("").split(',').map(str::to_owned));
                continue;
            }
            let value = match value {
                None => AttrValue::Flag,
                Some(v) => v
                    .parse::<i64>()
                    .map_or_else(|_| AttrValue::Str(v.to_owned()), AttrValue::Int),
            };
            attrs.retain(|(n, _)| n != name);
            attrs.push((name.to_owned(), value));
        }
        if let Some((_, AttrValue::Str(device))) = attrs.iter().find(|(n, _)| n == "device") {
            keys.push(device.clone());
        }
        for k in default_keys.iter() {
            keys.push((*k).to_owned());
        }
        let mut unique: Vec<String> = Vec::new();
        for k in keys.into_iter().filter(|k| !k.is_empty()) {
            if !unique.contains(&k) {
                unique.push(k);
            }
        }
        attrs.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(Target {
            kind: kind.to_owned(),
            keys: unique,
            attrs,
        })
    }

    /// The attribute called `name`, if set.
    pub fn attr(&self, name: &str) -> Option<&AttrValue> {
        self.attrs.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

impl fmt::Display for Target {
    /// As TVM prints a target: the kind, `-keys=...`, then the attributes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} -keys={}", self.kind, self.keys.join(","))?;
        for (name, value) in &self.attrs {
            match value {
                AttrValue::Flag => write!(f, " -{name}")?,
                v => write!(f, " -{name}={v}")?,
            }
        }
        Ok(())
    }
}

/// `target.name`: the kind, keys, attributes, and the attributes TVM's
/// Python exposes as properties (`max_num_threads`, `arch`, `mcpu`...).
pub(crate) fn attribute(t: &std::rc::Rc<Target>, name: &str) -> Option<crate::Value> {
    use crate::object::Object;
    use crate::Value;
    let value_of = |v: &AttrValue| match v {
        AttrValue::Int(i) => Value::Int(*i),
        AttrValue::Str(s) => Value::str(s),
        AttrValue::Flag => Value::Bool(true),
    };
    Some(match name {
        "kind" => Value::Object(Object::TargetKind(std::rc::Rc::from(t.kind.as_str()))),
        "keys" => Value::list(t.keys.iter().map(|k| Value::str(k)).collect()),
        "attrs" => Value::Dict(std::rc::Rc::from(
            t.attrs
                .iter()
                .map(|(k, v)| (Value::str(k), value_of(v)))
                .collect::<Vec<_>>(),
        )),
        "host" => Value::None,
        "arch" | "model" | "mcpu" | "mtriple" => {
            t.attr(name).map_or_else(|| Value::str(""), value_of)
        }
        _ => value_of(t.attr(name)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_as_tvm_describes_them() {
        let cuda = Target::parse("cuda").unwrap();
        assert_eq!(cuda.keys, ["cuda", "gpu"]);
        assert_eq!(cuda.attr("max_num_threads"), Some(&AttrValue::Int(1024)));
        assert_eq!(
            cuda.to_string(),
            "cuda -keys=cuda,gpu -max_num_threads=1024 -thread_warp_size=32"
        );
        let cpu = Target::parse("llvm -mcpu=skylake-avx512").unwrap();
        assert_eq!(cpu.to_string(), "llvm -keys=cpu -mcpu=skylake-avx512");
        let arm = Target::parse("llvm -device=arm_cpu -keys=arm_cpu").unwrap();
        assert_eq!(arm.keys, ["arm_cpu", "cpu"]);
        assert!(Target::parse("tpu").is_err());
        assert!(Target::parse("llvm mcpu").is_err());
        assert!(Target::parse("").is_err());
    }
}
