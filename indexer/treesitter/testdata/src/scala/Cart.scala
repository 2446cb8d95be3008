package com.example.shop

import com.example.base.Repo
import scala.collection.mutable._
import java.util.{List => JList, Map}

/** A cart. */
class Cart(val owner: String, var size: Int) extends Base with Sized {
  var total: Int = 0
  val items = List[Item]()

  def add(item: Item): Int = {
    total += item.price
    this.total = total + 1
    helper(item)
    val r: Repo = new Repo()
    r.save(this)
    total
  }
}

trait Sized { def size(): Int }
object Registry { def get(): Cart = new Cart("x", 1) }
case class Item(price: Int)
type Carts = List[Cart]
object Main extends App { println("x") }
object M2 { def main(args: Array[String]): Unit = {} }
enum Color { case Red, Green }
