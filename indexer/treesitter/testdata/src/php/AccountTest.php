<?php
namespace App\Tests;

use PHPUnit\Framework\TestCase;
use App\Models\Account;

class AccountTest extends TestCase
{
    public function testDeposit(): void
    {
        $a = new Account(new Store());
        $a->deposit(2);
        $this->assertSame(2, $a->balance);
    }

    private function helper() {}
}
