<?php
namespace App\Models;

use App\Contracts\Repo;
use App\Support\{Log, Clock as C};

/** An account. */
class Account extends Model implements Repo, \Countable
{
    use HasFactory;
    const LIMIT = 10;
    public int $balance = 0;
    private ?Store $store;

    public function __construct(Store $store) {
        $this->store = $store;
    }

    public function deposit(int $n): void {
        $this->balance += $n;
        $this->balance ??= 1;
        $x = $this->store->load($n);
        self::helper();
        log_it($n);
        new Ledger($x);
        $a->update(['balance' => 3]);
        return $x->balance;
    }
    public static function helper() {}
}
interface Repo { public function load(int $id): Account; }
trait HasFactory { public function make() {} }
function log_it($n) { echo $n; }
enum Suit: string { case Hearts = 'H'; }
Route::get('/accounts', [AccountController::class, 'index']);
