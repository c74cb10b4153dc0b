/// One page of a list. `nextCursor` is absent on the last page; pass it back as `cursor`
/// to get the next one. Cursors are opaque and only valid for the endpoint that issued them.
public struct Page<Item: Codable & Sendable>: Codable, Sendable {
    /// The items of this page, in the endpoint's order.
    public var items: [Item]
    /// Where the next page starts, if there is one.
    public var nextCursor: String?

    /// Creates a page.
    public init(items: [Item], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }
}

extension Page: Equatable where Item: Equatable {}
