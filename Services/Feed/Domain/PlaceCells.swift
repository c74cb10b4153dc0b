import ServiceHTTP

/// A grid of latitude-longitude cells of `degrees` a side, numbered row by row from the
/// south-west corner: a place's cell is
///
///     CAST((latitude + 90) / degrees AS INTEGER) * columns + CAST((longitude + 180) / degrees AS INTEGER)
///
/// which is also the generated column feed's store indexes with the time, so that the newest
/// posts around a point are a merge of a few cells' newest-first index ranges rather than a
/// sort of every post in a latitude band. (Both sides are non-negative, so the truncation is
/// the floor; longitude 180 has a column of its own, as the cover below knows.)
struct PlaceCells: Sendable, Equatable {
    /// The side of a cell in degrees.
    let degrees: Double

    /// The most cells a cover may have before a coarser grid (or the band scan) is used.
    static let mostCells = 20

    /// Cells per row, longitude −180 up to (not including) 180.
    var columns: Int { Int((360 / degrees).rounded()) }

    func cell(of point: Coordinate) -> Int {
        Int((point.latitude + 90) / degrees) * columns + Int((point.longitude + 180) / degrees)
    }

    /// The cells a box's points can lie in, or nil when there are more than ``mostCells``.
    func cover(latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>) -> [Int]? {
        let rows = Int((latitudes.lowerBound + 90) / degrees)...Int((latitudes.upperBound + 90) / degrees)
        let columns = Int((longitudes.lowerBound + 180) / degrees)...Int((longitudes.upperBound + 180) / degrees)
        guard rows.count * columns.count <= Self.mostCells else { return nil }
        return rows.flatMap { row in columns.map { row * self.columns + $0 } }
    }
}
