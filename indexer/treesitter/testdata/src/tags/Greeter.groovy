class Greeter {
  String name
  def greet(String who) { println(who) }
}
def run() { new Greeter().greet("x") }
run()
