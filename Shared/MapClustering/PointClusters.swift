import Foundation
import Synchronization

/// Map clusters of points for every zoom level, by Supercluster's algorithm (greedy clustering
/// on a Web Mercator grid, one static k-d tree per zoom):
///
/// From the highest zoom down, each point or cluster not yet taken at this zoom takes every
/// other one within `radius / (extent × 2^zoom)` (in projected units, 0...1 across the world)
/// that is not taken either; if it took any, they become one cluster at their weighted
/// centroid. Points are visited in the order given (oldest post first), so a cluster's *seed* —
/// the first member visited — is stable as posts are added, and names the cluster: its id is
/// the zoom it formed at and its seed's post, unchanged by rebuilds that keep that seed.
///
/// The same entries as pysupercluster (Supercluster's C++ port) on the same points and
/// parameters, centroids to the last bit: the trees are laid out as kdbush lays them, so each
/// cluster's sum adds its members in the same order. A test runs both. Zooms above `maxZoom`
/// show every point on its own.
public struct PointClusters: Sendable {
    public struct Parameters: Sendable, Equatable {
        public var radius: Double
        public var extent: Double
        public var minZoom: Int
        public var maxZoom: Int

        /// Supercluster's defaults: 40 pixels on tiles of 512, zooms 0 to 16.
        public init(radius: Double = 40, extent: Double = 512, minZoom: Int = 0, maxZoom: Int = 16) {
            self.radius = radius
            self.extent = extent
            self.minZoom = minZoom
            self.maxZoom = maxZoom
        }
    }

    /// One entry of a zoom level: a post (`count` 1) or a cluster. (Compact: a million points
    /// make a few million entries across the zoom levels.)
    struct Entry: Sendable, Equatable {
        /// The seed's post, as its index among the points: a single post itself, a cluster's representative.
        var seed: Int32
        var count: Int32
        /// Web Mercator, 0...1.
        var x: Double
        var y: Double
        /// The members' extent in degrees (single precision, 16 bytes less an entry: rounded
        /// outwards, so the box holds every member exactly and is at most 2 m wider).
        var minLatitude: Float
        var minLongitude: Float
        var maxLatitude: Float
        var maxLongitude: Float
        /// The zoom the cluster formed at (it shows at that zoom and below until taken); -1 for a post.
        var formedAt: Int8
    }

    /// What a query answers: a post on its own, or a cluster.
    public struct Found: Sendable, Equatable {
        /// The post itself, or the cluster's representative (its seed).
        public var postID: String
        public var count: Int
        public var latitude: Double
        public var longitude: Double
        public var minLatitude: Double
        public var minLongitude: Double
        public var maxLatitude: Double
        public var maxLongitude: Double
        /// For a cluster: the zoom it formed at.
        public var formedAt: Int?

        public var isCluster: Bool { count > 1 }
        /// Stable across rebuilds that keep the same seed: `c<zoom>-<seed post id>`.
        public var id: String { formedAt.map { "c\($0)-\(postID)" } ?? postID }
        /// The zoom at which the cluster's members show as more than one entry.
        public var expansionZoom: Int? { formedAt.map { $0 + 1 } }
    }

    public let parameters: Parameters
    /// The points' post ids, in the order given.
    private let ids: [String]
    /// Index `z - minZoom` holds zoom `z`'s tree; the last holds the points themselves
    /// (zoom `maxZoom + 1` and above).
    private let levels: [KDTree]

    /// Points as (post id, latitude, longitude), in the order their seeds should be chosen.
    public init(points: [(id: String, latitude: Double, longitude: Double)], parameters: Parameters = .init()) {
        self.parameters = parameters
        ids = points.map(\.id)
        var entries = points.enumerated().map { index, point in
            Entry(
                seed: Int32(index), count: 1, x: Self.x(longitude: point.longitude),
                y: Self.y(latitude: point.latitude),
                minLatitude: Self.below(point.latitude), minLongitude: Self.below(point.longitude),
                maxLatitude: Self.above(point.latitude), maxLongitude: Self.above(point.longitude), formedAt: -1)
        }
        var levels: [KDTree] = []
        var tree = KDTree(entries)
        levels.append(tree)
        for zoom in stride(from: parameters.maxZoom, through: parameters.minZoom, by: -1) {
            entries = Self.cluster(tree, zoom: zoom, parameters: parameters)
            tree = KDTree(entries)
            levels.append(tree)
        }
        self.levels = levels.reversed()
    }

    public var pointCount: Int { levels.last?.entries.count ?? 0 }

    /// `degrees` in single precision, never above it (a box's minimum).
    static func below(_ degrees: Double) -> Float {
        let rounded = Float(degrees)
        return Double(rounded) > degrees ? rounded.nextDown : rounded
    }

    /// `degrees` in single precision, never below it (a box's maximum).
    static func above(_ degrees: Double) -> Float {
        let rounded = Float(degrees)
        return Double(rounded) < degrees ? rounded.nextUp : rounded
    }

    /// The entries of `zoom` whose position is inside the box (degrees; `minLongitude >
    /// maxLongitude` crosses the antimeridian).
    public func entries(
        minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double, zoom: Int
    ) -> [Found] {
        let level = levels[max(parameters.minZoom, min(zoom, parameters.maxZoom + 1)) - parameters.minZoom]
        // Posts beyond the projection's edge (±85.05°) lie outside 0...1; a box that reaches a
        // pole reaches them too.
        let top = maxLatitude >= 90 ? -Double.infinity : Self.y(latitude: maxLatitude)
        let bottom = minLatitude <= -90 ? Double.infinity : Self.y(latitude: minLatitude)
        let entries =
            minLongitude > maxLongitude
            ? level.range(minX: Self.x(longitude: minLongitude), minY: top, maxX: 1, maxY: bottom)
                + level.range(minX: 0, minY: top, maxX: Self.x(longitude: maxLongitude), maxY: bottom)
            : level.range(
                minX: Self.x(longitude: minLongitude), minY: top, maxX: Self.x(longitude: maxLongitude), maxY: bottom)
        return entries.map { entry in
            Found(
                postID: ids[Int(entry.seed)], count: Int(entry.count), latitude: Self.latitude(y: entry.y),
                longitude: Self.longitude(x: entry.x), minLatitude: Double(entry.minLatitude),
                minLongitude: Double(entry.minLongitude), maxLatitude: Double(entry.maxLatitude),
                maxLongitude: Double(entry.maxLongitude),
                formedAt: entry.formedAt < 0 ? nil : Int(entry.formedAt))
        }
    }

    /// The most neighbours an entry's list holds: the lists' memory stays below this many
    /// indices per entry (the busiest zoom of a million city posts averages about four).
    static let listLimit = 32

    /// One zoom's entries from the tree of the zoom above.
    ///
    /// The greedy pass must visit entries in order, but what it asks of the tree does not
    /// depend on it: every entry's neighbours are looked up first, on all cores
    /// (``KDTree/neighbourLists(radius:limit:)``), and the pass reads them. An entry taken
    /// before its turn wastes its lookup: a few percent of them at the busy high zooms, where
    /// the lookups cost most. An entry with more neighbours than `listLimit` (a crowd at one
    /// spot, where one entry takes all the others) is looked up when its turn comes, as it
    /// would be without lists, so a crowd costs neither time nor memory by the square of its size.
    private static func cluster(_ tree: KDTree, zoom: Int, parameters: Parameters) -> [Entry] {
        let radius = parameters.radius / (parameters.extent * Double(1 << zoom))
        let lists = tree.neighbourLists(radius: radius, limit: listLimit)
        var taken = [Bool](repeating: false, count: tree.entries.count)
        var next: [Entry] = []
        next.reserveCapacity(tree.entries.count / 2)
        var crowd: [Int32] = []
        for index in tree.entries.indices where !taken[index] {
            taken[index] = true
            var entry = tree.entries[index]
            var count = entry.count
            var weightedX = entry.x * Double(entry.count)
            var weightedY = entry.y * Double(entry.count)
            var grew = false
            lists.forEach(of: index, orLookUpIn: tree, radius: radius, using: &crowd) { neighbour in
                guard !taken[neighbour] else { return }
                taken[neighbour] = true
                grew = true
                let other = tree.entries[neighbour]
                weightedX += other.x * Double(other.count)
                weightedY += other.y * Double(other.count)
                count += other.count
                entry.minLatitude = min(entry.minLatitude, other.minLatitude)
                entry.minLongitude = min(entry.minLongitude, other.minLongitude)
                entry.maxLatitude = max(entry.maxLatitude, other.maxLatitude)
                entry.maxLongitude = max(entry.maxLongitude, other.maxLongitude)
            }
            if grew {
                entry.x = weightedX / Double(count)
                entry.y = weightedY / Double(count)
                entry.count = count
                entry.formedAt = Int8(zoom)
            }
            next.append(entry)
        }
        return next
    }

    // MARK: - Web Mercator, as Supercluster projects

    static func x(longitude: Double) -> Double { longitude / 360 + 0.5 }

    static func y(latitude: Double) -> Double {
        if latitude <= -90 { return 1 }
        if latitude >= 90 { return 0 }
        let sine = sin(latitude * .pi / 180)
        return 0.5 - 0.25 * log((1 + sine) / (1 - sine)) / .pi
    }

    static func longitude(x: Double) -> Double { (x - 0.5) * 360 }

    static func latitude(y: Double) -> Double {
        360 * atan(exp((180 - y * 360) * .pi / 180)) / .pi - 90
    }
}

/// A static 2-d tree over entries (KDBush's layout: entries sorted in place so that each node's
/// median splits by x, then y, down to leaves of `nodeSize`), for box and radius queries.
struct KDTree: Sendable {
    let entries: [PointClusters.Entry]
    /// The entries' positions in tree order, each beside its index into `entries`: a hit's
    /// index is in the cache line its coordinates came from (a build is bound by cache misses,
    /// since its lookups come in the entries' order, not the tree's).
    private var nodes: [Node]
    private let nodeSize = 64

    private struct Node {
        var x: Double
        var y: Double
        var index: Int32

        func value(_ axis: Int) -> Double { axis == 0 ? x : y }
    }

    init(_ entries: [PointClusters.Entry]) {
        self.entries = entries
        nodes = entries.enumerated().map { Node(x: $1.x, y: $1.y, index: Int32($0)) }
        guard entries.count > 1 else { return }
        let nodeSize = self.nodeSize
        nodes.withUnsafeMutableBufferPointer { nodes in
            Sorting(nodes: nodes, nodeSize: nodeSize).sort(
                left: 0, right: nodes.count - 1, axis: 0, splits: Self.parallelSplits)
        }
    }

    /// How many times a sort or a set of lookups is halved across threads: enough halves for
    /// every core.
    private static let parallelSplits =
        Int.bitWidth - (ProcessInfo.processInfo.activeProcessorCount - 1).leadingZeroBitCount

    /// Entries with `minX <= x <= maxX` and `minY <= y <= maxY`.
    func range(minX: Double, minY: Double, maxX: Double, maxY: Double) -> [PointClusters.Entry] {
        guard !entries.isEmpty else { return [] }
        var found: [PointClusters.Entry] = []
        var stack: [(left: Int, right: Int, axis: Int)] = [(0, entries.count - 1, 0)]
        while let (left, right, axis) = stack.popLast() {
            if right - left <= nodeSize {
                for node in nodes[left...right]
                where node.x >= minX && node.x <= maxX && node.y >= minY && node.y <= maxY {
                    found.append(entries[Int(node.index)])
                }
                continue
            }
            let middle = (left + right) >> 1
            let node = nodes[middle]
            if node.x >= minX && node.x <= maxX && node.y >= minY && node.y <= maxY {
                found.append(entries[Int(node.index)])
            }
            let value = node.value(axis)
            if (axis == 0 ? minX : minY) <= value { stack.append((left, middle - 1, 1 - axis)) }
            if (axis == 0 ? maxX : maxY) >= value { stack.append((middle + 1, right, 1 - axis)) }
        }
        return found
    }

    /// Every entry's neighbours within `radius` (itself among them), looked up in slices on all
    /// cores. They are looked up in the tree's order, not the entries': each lookup then finds
    /// the leaves the one before it read still in the cache. The lists are then laid out in the
    /// entries' order, for the greedy pass to read front to back. A lookup stops at `limit`
    /// neighbours and leaves its entry's list empty (any other list holds at least its own
    /// entry), to be looked up when needed.
    func neighbourLists(radius: Double, limit: Int) -> NeighbourLists {
        let sliceCount = nodes.count < 8192 ? 1 : 4 << Self.parallelSplits
        let sliceSize = max((nodes.count + sliceCount - 1) / sliceCount, 1)
        let slices = Mutex([Int: (ends: [Int32], found: [Int32])]())
        DispatchQueue.concurrentPerform(iterations: sliceCount) { slice in
            let range = min(slice * sliceSize, nodes.count)..<min((slice + 1) * sliceSize, nodes.count)
            var ends: [Int32] = []
            ends.reserveCapacity(range.count)
            var found: [Int32] = []
            found.reserveCapacity(range.count * 4)
            for node in nodes[range] {
                let start = found.count
                if !within(x: node.x, y: node.y, radius: radius, into: &found, limit: limit) {
                    found.removeSubrange(start...)
                    ends.append(-1)
                } else {
                    ends.append(Int32(found.count))
                }
            }
            slices.withLock { $0[slice] = (ends, found) }
        }
        let bySlot = slices.withLock { slices in (0..<sliceCount).map { slices[$0]! } }
        // Each entry's count, then where its list ends in entry order.
        var ends = [Int32](repeating: 0, count: nodes.count)
        for (slice, lists) in bySlot.enumerated() {
            var start: Int32 = 0
            for (position, end) in lists.ends.enumerated() where end >= 0 {
                ends[Int(nodes[slice * sliceSize + position].index)] = end - start
                start = end
            }
        }
        var total: Int32 = 0
        for index in ends.indices {
            total += ends[index]
            ends[index] = total
        }
        let entryEnds = ends
        var found = [Int32](repeating: 0, count: Int(total))
        found.withUnsafeMutableBufferPointer { found in
            nonisolated(unsafe) let found = found
            // Each slice writes only its own entries' lists.
            DispatchQueue.concurrentPerform(iterations: sliceCount) { slice in
                let lists = bySlot[slice]
                var start = 0
                for (position, end) in lists.ends.enumerated() where end >= 0 {
                    let entry = Int(nodes[slice * sliceSize + position].index)
                    var destination = Int(entryEnds[entry]) - (Int(end) - start)
                    for i in start..<Int(end) {
                        found[destination] = lists.found[i]
                        destination += 1
                    }
                    start = Int(end)
                }
            }
        }
        return NeighbourLists(ends: ends, found: found)
    }

    /// Each entry's neighbours within a radius, one entry's after the other's.
    struct NeighbourLists: Sendable {
        /// Where each entry's neighbours end in `found`; an empty list is a crowd's.
        let ends: [Int32]
        let found: [Int32]

        /// Calls `body` with each neighbour of `index`: from its list, or for a crowded entry
        /// from a lookup in `tree` now (into `scratch`).
        func forEach(
            of index: Int, orLookUpIn tree: KDTree, radius: Double, using scratch: inout [Int32],
            _ body: (Int) -> Void
        ) {
            let start = index == 0 ? 0 : Int(ends[index - 1])
            let end = Int(ends[index])
            if start == end {
                scratch.removeAll(keepingCapacity: true)
                let entry = tree.entries[index]
                _ = tree.within(x: entry.x, y: entry.y, radius: radius, into: &scratch, limit: .max)
                for neighbour in scratch { body(Int(neighbour)) }
                return
            }
            for i in start..<end { body(Int(found[i])) }
        }
    }

    /// Indices (into `entries`) within `radius` of (x, y), appended to `found`; false, with
    /// `found` part-way, as soon as more than `limit` were found. The hot path of a build (once
    /// per entry per zoom): its work stack lives on the call stack, and the nodes are read
    /// without bounds checks.
    fileprivate func within(
        x qx: Double, y qy: Double, radius: Double, into found: inout [Int32], limit: Int
    ) -> Bool {
        guard !entries.isEmpty else { return true }
        let squared = radius * radius
        let nodeSize = self.nodeSize
        let count = entries.count
        let stop = limit == .max ? Int.max : found.count + limit
        return nodes.withUnsafeBufferPointer { nodes in
            // Depth is below 2 × log2(count): 128 entries cover any array this machine holds.
            withUnsafeTemporaryAllocation(of: (Int, Int, Int).self, capacity: 128) { stack in
                var top = 0
                stack[0] = (0, count - 1, 0)
                top = 1
                while top > 0 {
                    top -= 1
                    let (left, right, axis) = stack[top]
                    if right - left <= nodeSize {
                        for i in left...right {
                            let node = nodes[i]
                            let dx = node.x - qx
                            let dy = node.y - qy
                            if dx * dx + dy * dy <= squared { found.append(node.index) }
                        }
                        if found.count > stop { return false }
                        continue
                    }
                    let middle = (left + right) >> 1
                    let node = nodes[middle]
                    let dx = node.x - qx
                    let dy = node.y - qy
                    if dx * dx + dy * dy <= squared { found.append(node.index) }
                    if found.count > stop { return false }
                    let value = node.value(axis)
                    let query = axis == 0 ? qx : qy
                    // The right half goes on the stack first, so the left half's neighbours come
                    // first, as kdbush's recursion finds them.
                    if query + radius >= value {
                        stack[top] = (middle + 1, right, 1 - axis)
                        top += 1
                    }
                    if query - radius <= value {
                        stack[top] = (left, middle - 1, 1 - axis)
                        top += 1
                    }
                }
                return true
            }
        }
    }

    /// Sorts `left...right` so that each node's middle element is the median on its axis, over
    /// the array's raw storage (the build's other hot path). The halves below a node touch
    /// disjoint ranges, so the first `splits` levels sort their halves on two threads.
    private struct Sorting: @unchecked Sendable {
        let nodes: UnsafeMutableBufferPointer<Node>
        let nodeSize: Int

        func sort(left: Int, right: Int, axis: Int, splits: Int = 0) {
            if right - left <= nodeSize { return }
            let middle = (left + right) >> 1
            select(middle, left: left, right: right, axis: axis)
            if splits > 0 && right - left > 65536 {
                DispatchQueue.concurrentPerform(iterations: 2) { half in
                    if half == 0 {
                        sort(left: left, right: middle - 1, axis: 1 - axis, splits: splits - 1)
                    } else {
                        sort(left: middle + 1, right: right, axis: 1 - axis, splits: splits - 1)
                    }
                }
            } else {
                sort(left: left, right: middle - 1, axis: 1 - axis)
                sort(left: middle + 1, right: right, axis: 1 - axis)
            }
        }

        /// Moves the `k`-th smallest (on `axis`) of `left...right` to `k`, smaller ones before
        /// it and larger after: kdbush's Floyd–Rivest selection, step for step, so that the
        /// tree lays the entries out as Supercluster's does and a lookup finds neighbours in the
        /// same order (a centroid is a sum in that order: the same order, the same bits). Equal
        /// coordinates (a crowd at one spot) stop both scans, so they split evenly and stay
        /// linear.
        func select(_ k: Int, left: Int, right: Int, axis: Int) {
            var left = left
            var right = right
            while right > left {
                if right - left > 600 {
                    let n = Double(right - left + 1)
                    let m = Double(k - left + 1)
                    let z = log(n)
                    let s = 0.5 * exp(2 * z / 3)
                    let r = Double(k) - m * s / n + 0.5 * (z * s * (1 - s / n)).squareRoot() * (2 * m < n ? -1 : 1)
                    // kdbush's indices are unsigned: a negative bound would wrap and make the
                    // narrower selection a no-op.
                    if r >= 0 {
                        select(k, left: max(left, Int(r)), right: min(right, Int(r + s)), axis: axis)
                    }
                }
                let pivot = nodes[k].value(axis)
                var i = left
                var j = right
                nodes.swapAt(left, k)
                if nodes[right].value(axis) > pivot { nodes.swapAt(left, right) }
                while i < j {
                    nodes.swapAt(i, j)
                    i += 1
                    j -= 1
                    while nodes[i].value(axis) < pivot { i += 1 }
                    while nodes[j].value(axis) > pivot { j -= 1 }
                }
                if nodes[left].value(axis) == pivot {
                    nodes.swapAt(left, j)
                } else {
                    j += 1
                    nodes.swapAt(j, right)
                }
                if j <= k { left = j + 1 }
                if k <= j { right = j - 1 }
            }
        }
    }
}
