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
    /// when `new` lacks it); fields that are objects on every side are merged field by field, and
    /// arrays element by element where an element can be told apart by its place: when the three
    /// have as many, or when `new` is `old` with elements added at the end (which `target` then
    /// gains), so that an element's fields the edit did not change stay as `target` has them.
    static func merge(
        changesFrom old: [String: JSONValue], to new: [String: JSONValue], onto target: [String: JSONValue]
    ) -> [String: JSONValue] {
        var result = target
        for key in Set(old.keys).union(new.keys) where old[key] != new[key] {
            switch (old[key], new[key], target[key]) {
            case (.some(let oldField), .some(let newField), .some(let targetField)):
                result[key] = merge(changesFrom: oldField, to: newField, onto: targetField)
            default:
                result[key] = new[key]
            }
        }
        return result
    }

    /// `target` with the change from `old` to `new` (three values of one field): objects field by
    /// field, arrays element by element where their places match, anything else `new`.
    private static func merge(changesFrom old: JSONValue, to new: JSONValue, onto target: JSONValue) -> JSONValue {
        switch (old, new, target) {
        case (.object(let oldFields), .object(let newFields), .object(let targetFields)):
            return .object(merge(changesFrom: oldFields, to: newFields, onto: targetFields))
        case (.array(let oldElements), .array(let newElements), .array(let targetElements))
        where oldElements.count == targetElements.count
            && (newElements.count == oldElements.count || newElements.starts(with: oldElements)):
            let kept = zip(zip(oldElements, newElements), targetElements).map { pair, target in
                pair.0 == pair.1 ? target : merge(changesFrom: pair.0, to: pair.1, onto: target)
            }
            return .array(kept + newElements.dropFirst(oldElements.count))
        default:
            return old == new ? target : new
        }
    }
}
