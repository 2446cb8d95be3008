import XCTest
@testable import App

final class CartTests: XCTestCase {
    func testAdd() {
        let c = Cart(owner: "a")
        XCTAssertEqual(c.add(Item(price: 2)), 3)
    }

    func helper() {}
}
