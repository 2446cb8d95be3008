using System;
using App.Data;
using Log = App.Logging.Logger;

namespace App.Models
{
    /// <summary>An account.</summary>
    public class Account : Entity, IRepo<Account>
    {
        public const int Limit = 10;
        private readonly Store _store;
        public int Balance { get; set; }

        public Account(Store store) { _store = store; this.Balance = 0; }

        public void Deposit(int n)
        {
            Balance += n;
            this.Balance ??= 1;
            var x = _store.Load(n);
            Helper();
            var l = new Ledger(x);
            Store s = null;
            s.Count++;
        }

        [HttpGet("/accounts")]
        public static void Helper() { }
    }

    public interface IRepo<T> { T Load(int id); }
    public struct P { public int X; }
    public enum Suit { Hearts, Spades }
    public record R(int A);
}
namespace App.Tests;
public class AccountTests {
  [Fact]
  public void Deposits() { }
}
