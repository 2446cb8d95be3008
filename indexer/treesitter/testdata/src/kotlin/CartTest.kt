package com.example.shop

import org.junit.jupiter.api.Test
import io.kotest.core.spec.style.StringSpec

class CartTest {
    @Test
    fun addsItems() {
        val c = Cart("a")
        c.add(Item(2))
    }

    fun helper() {}
}

class CartSpec : StringSpec({
    "adds" { Cart("b").add(Item(1)) }
})
