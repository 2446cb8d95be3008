require "spec_helper"

describe Bank::Account do
  it "deposits" do
    a = Bank::Account.new("ann")
    a.deposit(1)
    expect(a.balance).to eq(1)
  end
end
