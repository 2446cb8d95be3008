require "json"
require_relative "../lib/store"

module Bank
  # An account holds money.
  class Account < Base
    include Comparable
    extend Forwardable
    attr_accessor :balance, :owner
    attr_reader :id
    LIMIT = 10

    def initialize(owner)
      @owner = owner
      @balance = 0
    end

    # Deposit money.
    def deposit(n)
      @balance += n
      @count ||= 0
      self.balance = 3
      log(n)
      Store::Ledger.new.record(self)
      update(balance: 5)
    end

    def self.open(x) = new(x)
  end
end
Rails.application.routes.draw do
  get '/accounts', to: 'accounts#index'
end
describe Bank::Account do
  it "deposits" do
    a.deposit(1)
  end
end
x, y = 1, 2
