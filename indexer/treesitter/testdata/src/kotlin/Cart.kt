package com.example.shop

import com.example.base.Repo
import kotlinx.coroutines.*
import java.util.List as JList

/** A cart. */
class Cart(val owner: String, private var size: Int = 0) : Base(), Sized {
    var total: Int = 0
    val items = mutableListOf<Item>()

    fun add(item: Item): Int {
        total += item.price
        this.total = total + 1
        size++
        helper(item)
        val r: Repo = Repo()
        r.save(this)
        return total
    }
    companion object { const val MAX = 3 }
}

interface Sized { fun size(): Int }
object Registry { fun get(): Cart = Cart("x") }
enum class Color { RED, GREEN }
data class Item(val price: Int)
typealias Carts = List<Cart>
fun Cart.ext(): Int = total
fun main(args: Array<String>) { println(Cart("a").add(Item(1))) }
