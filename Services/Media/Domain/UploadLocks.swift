/// One writer per upload at a time: a second PATCH (or a DELETE) while one writes is a 409.
actor UploadLocks {
    private var active: Set<String> = []

    func acquire(_ id: String) -> Bool { active.insert(id).inserted }
    func release(_ id: String) { active.remove(id) }
}
