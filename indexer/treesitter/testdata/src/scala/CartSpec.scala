package com.example.shop

import org.scalatest.funsuite.AnyFunSuite

class CartSpec extends AnyFunSuite {
  test("adds items") {
    val c = new Cart("a", 0)
    c.add(Item(2))
  }
}
