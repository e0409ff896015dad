//! Static routing, computed once when the world is built.
//!
//! Routes are lists of port ids stored in one shared arena; a packet carries the start of its
//! route and a hop index (source routing, as htsim does), so forwarding needs no table look-up
//! and no hashing. Shortest paths are by hop count (breadth-first search); among equal paths
//! the one through the earlier-declared link wins, so routing is deterministic.

/// Adjacency: for each node, the (neighbour, port from this node to it) pairs in link order.
pub type Adjacency = Vec<Vec<(u32, u32)>>;

/// Shortest path by hops from `src` to `dst`, as a list of port ids; None if unreachable.
pub fn shortest_path(adj: &Adjacency, src: u32, dst: u32) -> Option<Vec<u32>> {
    if src == dst {
        return Some(Vec::new());
    }
    let n = adj.len();
    let mut via_port = vec![u32::MAX; n];
    let mut prev = vec![u32::MAX; n];
    let mut seen = vec![false; n];
    let mut frontier = std::collections::VecDeque::new();
    seen[src as usize] = true;
    frontier.push_back(src);
    while let Some(u) = frontier.pop_front() {
        for &(v, port) in &adj[u as usize] {
            if !seen[v as usize] {
                seen[v as usize] = true;
                prev[v as usize] = u;
                via_port[v as usize] = port;
                if v == dst {
                    let mut path = Vec::new();
                    let mut x = dst;
                    while x != src {
                        path.push(via_port[x as usize]);
                        x = prev[x as usize];
                    }
                    path.reverse();
                    return Some(path);
                }
                frontier.push_back(v);
            }
        }
    }
    None
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
    #[test]
    fn bfs_prefers_fewest_hops() {
        // 0-1-2-3 chain plus a shortcut 0-3 declared last.
        let adj: Adjacency = vec![vec![(1, 10), (3, 13)], vec![(0, 11), (2, 12)], vec![(1, 21), (3, 23)], vec![(2, 32), (0, 30)]];
        assert_eq!(shortest_path(&adj, 0, 3), Some(vec![13]));
        assert_eq!(shortest_path(&adj, 0, 2), Some(vec![10, 12]));
        assert_eq!(explicit_path(&adj, &[0, 1, 2, 3]), Ok(vec![10, 12, 23]));
        assert_eq!(explicit_path(&adj, &[0, 2]), Err(0));
    }
}
