"""Payments through the provider's HTTP API."""
import json
import urllib.request

from .packages.retry import retry

API = "https://payments.example.com/v1"


class PaymentDeclined(Exception):
    """The provider declined the charge."""


class PaymentClient:
    def __init__(self, api_key: str, timeout: float = 10.0):
        self.api_key = api_key
        self.timeout = timeout

    def _post(self, path: str, body: dict) -> dict:
        req = urllib.request.Request(
            API + path,
            data=json.dumps(body).encode(),
            headers={"Authorization": "Bearer " + self.api_key, "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=self.timeout) as resp:
            return json.loads(resp.read())

    @retry(attempts=3)
    def charge(self, amount_cents: int, currency: str, token: str) -> str:
        """Charge a card token; returns the charge id."""
        reply = self._post("/charges", {"amount": amount_cents, "currency": currency, "source": token})
        if reply.get("status") == "declined":
            raise PaymentDeclined(reply.get("reason", "declined"))
        return reply["id"]

    def refund(self, charge_id: str, amount_cents: int | None = None) -> str:
        """Refund a charge, all of it unless an amount is given."""
        body = {"charge": charge_id}
        if amount_cents is not None:
            body["amount"] = amount_cents
        return self._post("/refunds", body)["id"]
