import Foundation

/// Carries an edit's change from the value it was made on to another: what the edit changed in a
/// JSON object (fields set, added or removed, nested objects field by field) is set again on the
/// new value, and every other field keeps the new value's.
///
/// An edit made by kind keeps only the value before it and the value after it: after a relaunch its
/// change closure is gone, and when an earlier edit of the item is rejected, the later ones must
/// be shown without it. Pure.
enum PayloadRebase {
    /// `edited` (the value `before` became) with its change carried onto `newBase`; `edited` itself
    /// when `before` is `newBase`, or when any of the three is not a JSON object (a payload the app's
    /// own codec wrote), which then shows as the edit left it.
    static func rebase(_ edited: Data, from before: Data, onto newBase: Data) -> Data {
        guard before != newBase,
            case .object(let old)? = JSONValue.decode(before),
            case .object(let new)? = JSONValue.decode(edited),
            case .object(let target)? = JSONValue.decode(newBase),
            let encoded = JSONValue.object(merge(changesFrom: old, to: new, onto: target)).encoded()
        else { return edited }
        return encoded
    }

    /// `target` with every field that differs between `old` and `new` set as `new` has it (removed
    /// when `new` lacks it); fields that are objects on every side are merged field by field.
    static func merge(
        changesFrom old: [String: JSONValue], to new: [String: JSONValue], onto target: [String: JSONValue]
    ) -> [String: JSONValue] {
        var result = target
        for key in Set(old.keys).union(new.keys) where old[key] != new[key] {
            switch (old[key], new[key], target[key]) {
            case (.object(let oldField)?, .object(let newField)?, .object(let targetField)?):
                result[key] = .object(merge(changesFrom: oldField, to: newField, onto: targetField))
            default:
                result[key] = new[key]
            }
        }
        return result
    }
}
