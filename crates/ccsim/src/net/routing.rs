//! Static routing, computed once when the world is built.
//!
//! Routes are lists of port ids stored in one shared arena; a packet carries the start of its
//! route and a hop index (source routing, as htsim does), so forwarding needs no table look-up
//! and no hashing.
//!
//! Shortest paths are by hop count. Hosts do not forward: a path runs from its source host
//! through switches only to its destination host (or over a direct host-to-host link). Among
//! equal paths the lexicographically first wins, comparing the links taken at each hop in the
//! order they were declared, which is what a breadth-first search from the source that
//! explores links in declaration order finds; routing is deterministic.
//!
//! Set-up at scale: a breadth-first search per flow would cost O(flows x nodes), since every
//! host hangs off some switch (a dumbbell's two switches each have N hosts). [`Router`] instead
//! searches the switch graph once per first-hop switch ([`SwitchTree`]: distances, discovery
//! order and the path back) and joins a flow's first and last hops to it: O(degree(src) x
//! degree(dst)) per flow.

/// Adjacency: for each node, the (neighbour, port from this node to it) pairs in link order.
/// Ports come in pairs (link i gives port 2i one way and 2i + 1 the other), so the port back
/// over the same link is `port ^ 1`.
pub type Adjacency = Vec<Vec<(u32, u32)>>;

const NONE: u32 = u32::MAX;

/// A breadth-first search of the switch graph from one switch.
struct SwitchTree {
    /// Hops from the root, per node (NONE: unreached or not a switch).
    dist: Vec<u32>,
    /// Discovery order: among nodes at the same distance, a smaller rank has the
    /// lexicographically first path from the root.
    rank: Vec<u32>,
    /// The previous switch on that path and the port from it (NONE for the root).
    via: Vec<(u32, u32)>,
}

impl SwitchTree {
    fn search(adj: &Adjacency, is_switch: &[bool], root: u32) -> SwitchTree {
        let n = adj.len();
        let mut t = SwitchTree { dist: vec![NONE; n], rank: vec![NONE; n], via: vec![(NONE, NONE); n] };
        let mut frontier = std::collections::VecDeque::new();
        t.dist[root as usize] = 0;
        frontier.push_back(root);
        let mut order = 0;
        while let Some(u) = frontier.pop_front() {
            t.rank[u as usize] = order;
            order += 1;
            for &(v, port) in &adj[u as usize] {
                if is_switch[v as usize] && t.dist[v as usize] == NONE {
                    t.dist[v as usize] = t.dist[u as usize] + 1;
                    t.via[v as usize] = (u, port);
                    frontier.push_back(v);
                }
            }
        }
        t
    }

    /// The ports from the root to `to` (a switch this tree reached), appended to `out`.
    fn append_path(&self, to: u32, out: &mut Vec<u32>) {
        let start = out.len();
        let mut x = to;
        while self.via[x as usize].0 != NONE {
            out.push(self.via[x as usize].1);
            x = self.via[x as usize].0;
        }
        out[start..].reverse();
    }
}

/// A path src -> a ... b -> dst under consideration, and its rank: (hops, the first hop's
/// position among src's links, b's discovery rank from a, the last link's port).
struct Candidate {
    key: (u32, usize, u32, u32),
    a: u32,
    port_sa: u32,
    b: u32,
}

/// Shortest paths between hosts, with one switch-graph search per first-hop switch.
pub struct Router<'a> {
    adj: &'a Adjacency,
    is_switch: Vec<bool>,
    trees: Vec<Option<SwitchTree>>,
}

impl<'a> Router<'a> {
    pub fn new(adj: &'a Adjacency, is_switch: Vec<bool>) -> Self {
        let n = adj.len();
        Router { adj, is_switch, trees: (0..n).map(|_| None).collect() }
    }

    fn tree(&mut self, root: u32) -> &SwitchTree {
        let (adj, is_switch) = (self.adj, &self.is_switch);
        self.trees[root as usize].get_or_insert_with(|| SwitchTree::search(adj, is_switch, root))
    }

    /// The shortest path from `src` to `dst` as a list of port ids; None if there is none.
    pub fn shortest_path(&mut self, src: u32, dst: u32) -> Option<Vec<u32>> {
        if src == dst {
            return Some(Vec::new());
        }
        let adj = self.adj;
        // A direct link is the shortest path; the first declared wins.
        if let Some(&(_, port)) = adj[src as usize].iter().find(|&&(v, _)| v == dst) {
            return Some(vec![port]);
        }
        // Otherwise: src -> a (a switch) ... b (a switch) -> dst, ranked by length, then by
        // the first hop's order, then by the path from a to b, then by the last link's order.
        let mut best: Option<Candidate> = None;
        for (i, &(a, port_sa)) in adj[src as usize].iter().enumerate() {
            if !self.is_switch[a as usize] {
                continue;
            }
            if best.as_ref().is_some_and(|c| c.key.1 < i && c.key.0 <= 2) {
                break; // nothing later can beat a two-hop path through an earlier link
            }
            let tree = self.tree(a);
            for &(b, port_db) in &adj[dst as usize] {
                let d = tree.dist[b as usize];
                if d == NONE {
                    continue;
                }
                let key = (d + 2, i, tree.rank[b as usize], port_db ^ 1);
                if best.as_ref().is_none_or(|c| key < c.key) {
                    best = Some(Candidate { key, a, port_sa, b });
                }
            }
        }
        let Candidate { key: (_, _, _, port_bd), a, port_sa, b } = best?;
        let mut path = vec![port_sa];
        self.tree(a).append_path(b, &mut path);
        path.push(port_bd);
        Some(path)
    }
}

/// The ports along an explicit node sequence; Err(i) if nodes i and i+1 are not adjacent.
pub fn explicit_path(adj: &Adjacency, nodes: &[u32]) -> Result<Vec<u32>, usize> {
    let mut path = Vec::with_capacity(nodes.len().saturating_sub(1));
    for (i, w) in nodes.windows(2).enumerate() {
        match adj[w[0] as usize].iter().find(|(v, _)| *v == w[1]) {
            Some(&(_, port)) => path.push(port),
            None => return Err(i),
        }
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nodes and links (a, b) in declaration order: the adjacency the builder makes.
    fn graph(n: usize, links: &[(u32, u32)]) -> Adjacency {
        let mut adj = vec![Vec::new(); n];
        for (i, &(a, b)) in links.iter().enumerate() {
            adj[a as usize].push((b, 2 * i as u32));
            adj[b as usize].push((a, 2 * i as u32 + 1));
        }
        adj
    }

    /// The reference: breadth-first search from the source, links in declaration order,
    /// hosts never expanded.
    fn bfs(adj: &Adjacency, is_switch: &[bool], src: u32, dst: u32) -> Option<Vec<u32>> {
        let n = adj.len();
        let mut prev = vec![(NONE, NONE); n];
        let mut seen = vec![false; n];
        let mut q = std::collections::VecDeque::from([src]);
        seen[src as usize] = true;
        while let Some(u) = q.pop_front() {
            if u != src && !is_switch[u as usize] {
                continue;
            }
            for &(v, port) in &adj[u as usize] {
                if !seen[v as usize] {
                    seen[v as usize] = true;
                    prev[v as usize] = (u, port);
                    q.push_back(v);
                }
            }
        }
        if !seen[dst as usize] {
            return None;
        }
        let mut path = vec![];
        let mut x = dst;
        while x != src {
            path.push(prev[x as usize].1);
            x = prev[x as usize].0;
        }
        path.reverse();
        Some(path)
    }

    #[test]
    fn fewest_hops_then_first_declared() {
        // Hosts 0 and 5; switches 1-4: a chain 1-2-3-4 plus a shortcut 1-4 declared last.
        let adj = graph(6, &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (1, 4)]);
        let mut r = Router::new(&adj, vec![false, true, true, true, true, false]);
        assert_eq!(r.shortest_path(0, 5), Some(vec![0, 10, 8]));
        assert_eq!(explicit_path(&adj, &[0, 1, 2, 3]), Ok(vec![0, 2, 4]));
        assert_eq!(explicit_path(&adj, &[0, 2]), Err(0));
    }

    #[test]
    fn hosts_do_not_forward() {
        // 0 - 1(host) - 2: no switch between them, so no route.
        let adj = graph(3, &[(0, 1), (1, 2)]);
        let mut r = Router::new(&adj, vec![false, false, false]);
        assert_eq!(r.shortest_path(0, 2), None);
        assert_eq!(r.shortest_path(0, 1), Some(vec![0]));
    }

    #[test]
    fn agrees_with_breadth_first_search_on_random_graphs() {
        let mut rng = crate::sim::Rng::from_seed(7);
        for _ in 0..300 {
            let n = 3 + (rng.next_u64() % 12) as usize;
            let is_switch: Vec<bool> = (0..n).map(|i| i >= 2 && !rng.next_u64().is_multiple_of(3)).collect();
            let m = rng.next_u64() % (2 * n as u64) + 1;
            let links: Vec<(u32, u32)> = (0..m)
                .map(|_| (rng.next_u64() % n as u64, rng.next_u64() % n as u64))
                .filter(|(a, b)| a != b)
                .map(|(a, b)| (a as u32, b as u32))
                .collect();
            let adj = graph(n, &links);
            let mut r = Router::new(&adj, is_switch.clone());
            for s in 0..n as u32 {
                for d in 0..n as u32 {
                    if s != d && !is_switch[s as usize] && !is_switch[d as usize] {
                        assert_eq!(r.shortest_path(s, d), bfs(&adj, &is_switch, s, d), "{links:?} {s}->{d}");
                    }
                }
            }
        }
    }
}
