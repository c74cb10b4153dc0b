/// Where a page of a ranked list starts: how many results came before (search results, whose
/// order is a score rather than a time). Lists that page this way stop at a bound they state.
public struct OffsetPosition: Codable, Sendable, Equatable {
    public var offset: Int

    public init(offset: Int) { self.offset = offset }
}
