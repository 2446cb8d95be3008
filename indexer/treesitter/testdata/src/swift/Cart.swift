import Foundation
import UIKit

/// A cart.
class Cart: Base, Sized {
    var total: Int = 0
    let items = [Item]()
    static let max = 3

    init(owner: String) { self.owner = owner }

    func add(_ item: Item) -> Int {
        total += item.price
        self.total = total + 1
        helper(item)
        let r: Repo = Repo()
        r.save(self)
        return total
    }
}

protocol Sized { func size() -> Int }
struct Item { var price: Int }
enum Color { case red, green }
extension Cart: Codable {
    func ext() -> Int { return total }
}
typealias Carts = [Cart]
func topLevel(x: Int) -> Int { return x }
@main struct App { static func main() {} }
protocol P { var x: Int { get }
 init(a: Int)
}
extension Cart { convenience init() {} }
func f() { if let y = g() { y.h() }
 guard let z = k else { return }
 for i in xs { }
 n += 1
 let c = Cart(owner: "a")
 xs.forEach { v in print(v) }
}
import struct Foo.Bar
