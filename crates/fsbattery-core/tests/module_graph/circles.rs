//! Circles in a module graph: each strongly connected group of two or more modules
//! (Tarjan), with one shortest circle through it to show.

use super::graph::Graph;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Each strongly connected group of two or more modules (Tarjan), with one circle through it
/// as the path `a → b → … → a`.
pub fn circles(g: &Graph) -> Vec<(BTreeSet<String>, Vec<String>)> {
    struct State<'g> {
        g: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        groups: Vec<BTreeSet<&'g str>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        for w in s.g.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                s.low.entry(v).and_modify(|l| *l = (*l).min(lw));
            } else if s.stack.contains(&w) {
                let iw = s.index[w];
                s.low.entry(v).and_modify(|l| *l = (*l).min(iw));
            }
        }
        if s.low[v] == s.index[v] {
            let mut group = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                group.insert(w);
                if w == v {
                    break;
                }
            }
            if group.len() > 1 {
                s.groups.push(group);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        groups: Vec::new(),
    };
    for v in g.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    let named = |group: &BTreeSet<&str>| group.iter().map(|m| m.to_string()).collect();
    s.groups
        .iter()
        .map(|group| (named(group), circle_in(g, group)))
        .collect()
}

/// A shortest path from the group's first module back to itself, inside the group.
fn circle_in(g: &Graph, group: &BTreeSet<&str>) -> Vec<String> {
    let start = *group.iter().next().unwrap();
    let mut prev: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for w in g[v]
            .iter()
            .map(String::as_str)
            .filter(|w| group.contains(w))
        {
            if w == start {
                let mut path = vec![start.to_string()];
                let mut at = v;
                while at != start {
                    path.push(at.to_string());
                    at = prev[at];
                }
                path.push(start.to_string());
                let last = path.len() - 1;
                path[1..last].reverse();
                return path;
            }
            if !prev.contains_key(w) {
                prev.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    unreachable!("a strongly connected group holds a circle")
}
