import Glibc

/// A file's modification time in seconds since 1970 (`stat`), or nil when it is not there.
/// (Foundation's file attributes look up the owner's name and more besides; Glibc's `stat`
/// alone, in a file that does not import Foundation, is what `stat` is.)
func modificationTime(of path: String) -> Double? {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    return Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9
}
