"""The typed state of the simulated world.

A task seeds the world with a plain dict (``body.world`` in its YAML); :class:`WorldState` validates it, with
unknown keys rejected so that a typo in a task is an error rather than a silently empty domain. Every domain
has a default, so a task names only the parts it uses.

Collections that a task seeds and tools edit in place are dicts keyed by a stable id (orders, requests,
files). Collections that tools only append to (refunds, escalations, outbox) are lists and are compared as
multisets when grading, so the order in which a model made two independent refunds does not matter.

Fields marked ``graded=False`` hold free text the model writes (a note, a message body). They are part of the
state and of its hash, but the state diff used for grading leaves them out: free prose never matches a gold
string byte for byte. Checks on such text are declared separately (``checks.messages``).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

# Pass to ``Field(json_schema_extra=...)`` on a field the state diff must ignore.
UNGRADED: dict[str, Any] = {"graded": False}


def unit(symbol: str) -> dict[str, Any]:
    """Pass to ``Field(json_schema_extra=...)`` on a number field: the unit it is in (a symbol of
    ``engine.readers.quantity.UNITS``), so that an answer check naming the figure compares quantities
    (``engine.world.figures``)."""
    return {"unit": symbol}

OrderStatus = Literal["pending", "approved", "rejected", "shipped", "delivered", "cancelled"]
RejectReason = Literal["over_budget", "out_of_stock", "duplicate", "customer_request", "other"]
RefundReason = Literal["damaged", "not_received", "wrong_item", "late", "other"]
RequestStatus = Literal["pending", "applied", "rejected", "superseded"]
ShippingService = Literal["standard", "express", "overnight"]
JsonScalar = str | int | float | bool | None


def money(value: float) -> float:
    """Round to cents; every amount in the world goes through here so that sums compare exactly."""
    return round(float(value) + 0.0, 2)


class WorldModel(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class Account(WorldModel):
    """The spending budget that approving orders draws on."""

    budget: float = Field(default=0.0, ge=0)
    spent: float = Field(default=0.0, ge=0)
    currency: str = "EUR"
    # When true, approving past the budget succeeds (the tool does not protect the model from itself) and
    # only the grader sees the overspend.
    allow_overspend: bool = False

    @property
    def remaining(self) -> float:
        return money(self.budget - self.spent)


class Order(WorldModel):
    customer: str
    item: str
    quantity: int = Field(default=1, ge=1)
    unit_price: float = Field(ge=0)
    status: OrderStatus = "pending"
    priority: Literal["low", "normal", "high"] = "normal"
    placed_at: str = ""
    rejection_reason: RejectReason | None = None

    @property
    def total(self) -> float:
        return money(self.quantity * self.unit_price)


def _only_delivered() -> list[OrderStatus]:
    return ["delivered"]


class RefundPolicy(WorldModel):
    max_amount: float = Field(default=100.0, ge=0)
    refundable_statuses: list[OrderStatus] = Field(default_factory=_only_delivered)
    # Empty means every reason is accepted.
    allowed_reasons: list[RefundReason] = Field(default_factory=list)


class Refund(WorldModel):
    order_id: str
    amount: float
    reason: RefundReason


class Escalation(WorldModel):
    order_id: str
    amount: float
    reason: RefundReason
    note: str = Field(default="", json_schema_extra=UNGRADED)


class KeyValueStore(WorldModel):
    values: dict[str, JsonScalar] = Field(default_factory=dict)
    # Keys no tool may set or delete. Glob patterns are not supported on purpose: a task lists its keys.
    protected: list[str] = Field(default_factory=list)


class Request(WorldModel):
    """One entry of the request queue. ``received_at`` is an ISO 8601 timestamp; the queue is not sorted."""

    received_at: str
    sender: str
    subject: str
    body: str
    status: RequestStatus = "pending"
    note: str = Field(default="", json_schema_extra=UNGRADED)


class Contact(WorldModel):
    name: str
    email: str
    phone: str = ""
    team: str = ""


class Weather(WorldModel):
    temp_c: float = Field(json_schema_extra=unit("°C"))
    condition: str
    wind_kph: float = Field(default=0.0, json_schema_extra=unit("km/h"))


class Quote(WorldModel):
    price: float
    currency: str = "USD"
    change_pct: float = Field(default=0.0, json_schema_extra=unit("%"))


class Address(WorldModel):
    name: str = Field(description="Recipient's full name.")
    street: str = Field(description="Street and house number.")
    city: str = Field(description="City name.")
    postal_code: str = Field(description="Postal code as written in the address.")
    country: str = Field(description="Two-letter ISO 3166 country code, e.g. 'DE'.")


class ShipmentItem(WorldModel):
    sku: str = Field(description="Stock-keeping unit of the item.")
    quantity: int = Field(ge=1, description="How many units of this SKU go in the parcel.")


class Insurance(WorldModel):
    insured_value: float = Field(ge=0, description="Value to insure, in the account currency.")
    signature_required: bool = Field(default=False, description="Whether delivery needs a signature.")


class Shipment(WorldModel):
    address: Address
    items: list[ShipmentItem]
    service: ShippingService
    insurance: Insurance | None = None


class Message(WorldModel):
    to: str
    subject: str = Field(json_schema_extra=UNGRADED)
    body: str = Field(json_schema_extra=UNGRADED)


class WorldState(WorldModel):
    """Everything the tools can see or change. Seeded from a task's ``body.world``."""

    account: Account = Field(default_factory=Account)
    orders: dict[str, Order] = Field(default_factory=dict)
    refund_policy: RefundPolicy = Field(default_factory=RefundPolicy)
    refunds: list[Refund] = Field(default_factory=list)
    escalations: list[Escalation] = Field(default_factory=list)
    kv: KeyValueStore = Field(default_factory=KeyValueStore)
    # Path -> text. Files ending in ``.md`` are compared on their Markdown structure, others on their lines.
    files: dict[str, str] = Field(default_factory=dict)
    requests: dict[str, Request] = Field(default_factory=dict)
    contacts: dict[str, Contact] = Field(default_factory=dict)
    weather: dict[str, Weather] = Field(default_factory=dict)
    quotes: dict[str, Quote] = Field(default_factory=dict)
    # Keyed by order id: an order ships at most once.
    shipments: dict[str, Shipment] = Field(default_factory=dict)
    outbox: list[Message] = Field(default_factory=list)


def canonical_json(value: Any) -> str:
    """One byte string per value: sorted keys, no spaces, no NaN. Used for hashes and multiset keys."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def state_hash(state: WorldState) -> str:
    """SHA-256 of the whole state, free text included: two worlds with the same hash are the same world."""
    return hashlib.sha256(canonical_json(state.model_dump(mode="json")).encode()).hexdigest()
