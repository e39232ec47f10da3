import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// Carrying an edit's change onto another value, alone: what it changed is set again, every other
/// field keeps the new value's, and a payload that is not a JSON object shows as the edit left it.
@Suite(.limit(minutes: 3)) struct PayloadRebaseTests {
    func json(_ text: String) -> Data { Data(text.utf8) }

    func object(_ data: Data) -> JSONValue? { JSONValue.decode(data) }

    @Test func theFieldsAnEditChangedAreSetAgainAndTheOthersKeepTheNewValue() {
        let rebased = PayloadRebase.rebase(
            json(#"{"id":"a","liked":true,"replies":1}"#), from: json(#"{"id":"a","liked":false,"replies":1}"#),
            onto: json(#"{"id":"a","liked":false,"replies":5}"#))
        #expect(object(rebased) == object(json(#"{"id":"a","liked":true,"replies":5}"#)))
    }

    @Test func aFieldTheEditRemovedOrAddedIsRemovedOrAddedAgain() {
        let rebased = PayloadRebase.rebase(
            json(#"{"id":"a","tag":"x"}"#), from: json(#"{"id":"a","note":"n"}"#),
            onto: json(#"{"id":"a","note":"m","count":2}"#))
        #expect(object(rebased) == object(json(#"{"id":"a","tag":"x","count":2}"#)))
    }

    @Test func nestedObjectsAreMergedFieldByFieldAndArraysReplacedWhole() {
        let rebased = PayloadRebase.rebase(
            json(#"{"me":{"liked":true,"seen":false},"tags":["b"]}"#),
            from: json(#"{"me":{"liked":false,"seen":false},"tags":["a"]}"#),
            onto: json(#"{"me":{"liked":false,"seen":true},"tags":["a","c"]}"#))
        #expect(object(rebased) == object(json(#"{"me":{"liked":true,"seen":true},"tags":["b"]}"#)))
    }

    @Test func anEditOnTheSameValueOrOnAPayloadThatIsNotAnObjectIsKeptByteForByte() {
        let edited = json(#"{"b":1, "a":2}"#)
        #expect(PayloadRebase.rebase(edited, from: json(#"{"b":0}"#), onto: json(#"{"b":0}"#)) == edited)
        #expect(PayloadRebase.rebase(edited, from: json("[1]"), onto: json(#"{"b":0}"#)) == edited)
        #expect(
            PayloadRebase.rebase(Data([0xFF, 0x00]), from: json(#"{"b":0}"#), onto: json(#"{"b":1}"#))
                == Data([0xFF, 0x00]))
    }

    @Test func numbersStringsAndNullsSurviveTheRoundTrip() {
        let rebased = PayloadRebase.rebase(
            json(#"{"n":null,"big":9007199254740993,"pi":3.25,"s":"é\"/","flag":false}"#),
            from: json(#"{"n":1,"big":9007199254740993,"pi":3.25,"s":"é\"/","flag":true}"#),
            onto: json(#"{"n":1,"big":9007199254740993,"pi":3.25,"s":"é\"/","flag":true,"x":0}"#))
        #expect(
            object(rebased)
                == object(json(#"{"n":null,"big":9007199254740993,"pi":3.25,"s":"é\"/","flag":false,"x":0}"#)))
        #expect(String(decoding: rebased, as: UTF8.self).contains("9007199254740993"))
    }
}
