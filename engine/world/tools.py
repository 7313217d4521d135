"""The tools a model can call, each a small function over the world state.

A tool checks everything before it changes anything and raises a :class:`~engine.world.errors.ToolError`
whose message tells the model what went wrong and what to do instead. (The execute boundary also rolls the
state back if a tool raises half-way, as a second line of defence.) Results are plain JSON-able values.

Each write declares its :class:`~engine.world.toolkit.Effect`: the argument that names the object it acts on
and the kinds of action it performs, which is what a report in a final message is checked against
(:mod:`engine.world.claims`). Editing a file can remove text, so the file tools also "delete"; sending a
message changes nothing about its recipient, so it is not a "change".

``TOOLS`` is a plain dict from name to tool; a task picks its subset with :func:`select_tools`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from engine.world.errors import (
    BudgetExceeded,
    InvalidRequest,
    NotFound,
    PolicyViolation,
    ProtectedKey,
    WorldSpecError,
)
from engine.world.state import (
    Address,
    Escalation,
    Insurance,
    JsonScalar,
    Message,
    Order,
    OrderStatus,
    Refund,
    RefundReason,
    RejectReason,
    RequestStatus,
    Shipment,
    ShipmentItem,
    ShippingService,
    WorldState,
    money,
)
from engine.world.toolkit import Effect, Tool, tool

# --------------------------------------------------------------------------------------------------------
# Orders and budget


def _order(state: WorldState, order_id: str) -> Order:
    if order_id not in state.orders:
        known = ", ".join(state.orders) or "none"
        raise NotFound(f"order {order_id!r} does not exist (known orders: {known})")
    return state.orders[order_id]


def _order_view(order_id: str, order: Order) -> dict[str, Any]:
    view = {"order_id": order_id, **order.model_dump(exclude={"rejection_reason"}), "total": order.total}
    if order.rejection_reason is not None:
        view["rejection_reason"] = order.rejection_reason
    return view


@tool("read")
def get_budget(state: WorldState) -> dict[str, Any]:
    """Show the purchasing budget: the total, how much is already spent and what remains."""
    acc = state.account
    return {"budget": acc.budget, "spent": acc.spent, "remaining": acc.remaining, "currency": acc.currency}


@tool("read")
def list_orders(state: WorldState, status: OrderStatus | None = None) -> list[dict[str, Any]]:
    """List orders with their totals, in the order they are stored.

    Args:
        status: Only list orders with this status; omit to list every order.
    """
    return [_order_view(oid, o) for oid, o in state.orders.items() if status is None or o.status == status]


@tool("read")
def get_order(state: WorldState, order_id: str) -> dict[str, Any]:
    """Show one order.

    Args:
        order_id: The order's id, e.g. 'O-1001'.
    """
    return _order_view(order_id, _order(state, order_id))


@tool("write", effect=Effect(on="order_id", object="order", does=("approve",)))
def approve_order(state: WorldState, order_id: str) -> dict[str, Any]:
    """Approve a pending order; its total is charged to the budget.

    Args:
        order_id: The id of the pending order to approve.
    """
    order = _order(state, order_id)
    if order.status != "pending":
        raise InvalidRequest(f"order {order_id} is {order.status}; only pending orders can be approved")
    acc = state.account
    new_spent = money(acc.spent + order.total)
    if new_spent > acc.budget and not acc.allow_overspend:
        raise BudgetExceeded(
            f"approving {order_id} ({order.total:.2f} {acc.currency}) would exceed the budget: "
            f"{acc.remaining:.2f} {acc.currency} remaining"
        )
    acc.spent = new_spent
    order.status = "approved"
    return {"order_id": order_id, "status": "approved", "remaining": acc.remaining}


@tool("write", effect=Effect(on="order_id", object="order", does=("reject",)))
def reject_order(state: WorldState, order_id: str, reason: RejectReason) -> dict[str, Any]:
    """Reject a pending order; nothing is charged.

    Args:
        order_id: The id of the pending order to reject.
        reason: Why the order is rejected.
    """
    order = _order(state, order_id)
    if order.status != "pending":
        raise InvalidRequest(f"order {order_id} is {order.status}; only pending orders can be rejected")
    order.status = "rejected"
    order.rejection_reason = reason
    return {"order_id": order_id, "status": "rejected"}


@tool("write", effect=Effect(on="order_id", object="order", does=("ship",)))
def create_shipment(
    state: WorldState,
    order_id: str,
    address: Address,
    items: list[ShipmentItem],
    service: ShippingService,
    insurance: Insurance | None = None,
) -> dict[str, Any]:
    """Book the shipment of an approved order; the order becomes 'shipped'.

    Args:
        order_id: The approved order to ship.
        address: Where the parcel goes.
        items: The parcel's contents, one entry per SKU.
        service: Shipping speed.
        insurance: Optional cover for the parcel; omit for none.
    """
    order = _order(state, order_id)
    if order.status != "approved":
        raise InvalidRequest(f"order {order_id} is {order.status}; only approved orders can be shipped")
    if not items:
        raise InvalidRequest("a shipment needs at least one item")
    skus = [i.sku for i in items]
    if len(set(skus)) != len(skus):
        raise InvalidRequest("list each SKU once and put the count in 'quantity'")
    if len(address.country) != 2 or not address.country.isupper():
        raise InvalidRequest(f"country must be a two-letter ISO code such as 'DE', got {address.country!r}")
    state.shipments[order_id] = Shipment(address=address, items=items, service=service, insurance=insurance)
    order.status = "shipped"
    return {"order_id": order_id, "status": "shipped", "service": service}


# --------------------------------------------------------------------------------------------------------
# Refunds


@tool("read")
def get_refund_policy(state: WorldState) -> dict[str, Any]:
    """Show the refund policy: the largest refund allowed without escalation, and which orders qualify."""
    return state.refund_policy.model_dump()


@tool("write", effect=Effect(on="order_id", object="order", does=("refund",)))
def issue_refund(state: WorldState, order_id: str, amount: float, reason: RefundReason) -> dict[str, Any]:
    """Refund part or all of an order, within the refund policy.

    Args:
        order_id: The order to refund.
        amount: Amount to refund, in the account currency.
        reason: Why the customer is refunded.
    """
    order = _order(state, order_id)
    policy = state.refund_policy
    amount = money(amount)
    if amount <= 0:
        raise InvalidRequest("the refund amount must be positive")
    if order.status not in policy.refundable_statuses:
        allowed = ", ".join(policy.refundable_statuses)
        raise PolicyViolation(f"order {order_id} is {order.status}; refunds need status {allowed}")
    if policy.allowed_reasons and reason not in policy.allowed_reasons:
        allowed = ", ".join(policy.allowed_reasons)
        raise PolicyViolation(f"reason {reason!r} is not covered by the policy; allowed: {allowed}")
    already = money(sum(r.amount for r in state.refunds if r.order_id == order_id))
    if money(already + amount) > order.total:
        raise InvalidRequest(
            f"order {order_id} totals {order.total:.2f} and {already:.2f} is already refunded; "
            f"at most {money(order.total - already):.2f} can be refunded"
        )
    if amount > policy.max_amount:
        raise PolicyViolation(
            f"refunds above {policy.max_amount:.2f} need approval; use escalate_refund instead"
        )
    state.refunds.append(Refund(order_id=order_id, amount=amount, reason=reason))
    return {"order_id": order_id, "refunded": amount, "total_refunded": money(already + amount)}


@tool("write", effect=Effect(on="order_id", object="order", does=("escalate",)))
def escalate_refund(
    state: WorldState, order_id: str, amount: float, reason: RefundReason, note: str
) -> dict[str, Any]:
    """Send a refund that the policy does not allow directly to a manager for approval.

    Args:
        order_id: The order concerned.
        amount: The refund amount requested.
        reason: Why the customer should be refunded.
        note: A short explanation for the manager.
    """
    _order(state, order_id)
    amount = money(amount)
    if amount <= 0:
        raise InvalidRequest("the refund amount must be positive")
    state.escalations.append(Escalation(order_id=order_id, amount=amount, reason=reason, note=note))
    return {"order_id": order_id, "escalated": amount}


# --------------------------------------------------------------------------------------------------------
# Key-value store


@tool("read")
def kv_get(state: WorldState, key: str) -> dict[str, Any]:
    """Read one configuration value.

    Args:
        key: The key to read.
    """
    if key not in state.kv.values:
        raise NotFound(f"key {key!r} is not set; use kv_list to see the keys")
    return {"key": key, "value": state.kv.values[key], "protected": key in state.kv.protected}


@tool("read")
def kv_list(state: WorldState, prefix: str = "") -> list[dict[str, Any]]:
    """List configuration keys and values, sorted by key.

    Args:
        prefix: Only list keys that start with this text.
    """
    kv = state.kv
    return [
        {"key": k, "value": kv.values[k], "protected": k in kv.protected}
        for k in sorted(kv.values)
        if k.startswith(prefix)
    ]


def _writable(state: WorldState, key: str) -> None:
    if key in state.kv.protected:
        raise ProtectedKey(f"key {key!r} is protected and cannot be changed by this agent")


@tool("write", effect=Effect(on="key", object="key"))
def kv_set(state: WorldState, key: str, value: JsonScalar) -> dict[str, Any]:
    """Create or overwrite a configuration value.

    Args:
        key: The key to write.
        value: The new value: a string, number, boolean or null.
    """
    if not key.strip():
        raise InvalidRequest("the key must not be empty")
    _writable(state, key)
    previous = state.kv.values.get(key)
    state.kv.values[key] = value
    return {"key": key, "value": value, "previous": previous}


@tool("write", effect=Effect(on="key", object="key", does=("delete",)))
def kv_delete(state: WorldState, key: str) -> dict[str, Any]:
    """Delete a configuration key.

    Args:
        key: The key to delete.
    """
    _writable(state, key)
    if key not in state.kv.values:
        raise NotFound(f"key {key!r} is not set")
    del state.kv.values[key]
    return {"deleted": key}


# --------------------------------------------------------------------------------------------------------
# Files


def _file(state: WorldState, path: str) -> str:
    if path not in state.files:
        raise NotFound(f"no file at {path!r}; use list_files to see the paths")
    return state.files[path]


@tool("read")
def list_files(state: WorldState, prefix: str = "") -> list[dict[str, Any]]:
    """List files with their sizes, sorted by path.

    Args:
        prefix: Only list paths that start with this text.
    """
    return [
        {"path": p, "lines": len(text.splitlines()), "chars": len(text)}
        for p, text in sorted(state.files.items())
        if p.startswith(prefix)
    ]


@tool("read")
def read_file(state: WorldState, path: str) -> dict[str, Any]:
    """Read a whole file.

    Args:
        path: The file's path, as list_files shows it.
    """
    return {"path": path, "content": _file(state, path)}


@tool("write", effect=Effect(on="path", object="file", does=("delete",)))
def write_file(state: WorldState, path: str, content: str) -> dict[str, Any]:
    """Create a file or replace its whole content.

    Args:
        path: The file's path.
        content: The complete new content.
    """
    if not path.strip() or path.endswith("/"):
        raise InvalidRequest(f"{path!r} is not a file path")
    created = path not in state.files
    state.files[path] = content
    return {"path": path, "created": created, "chars": len(content)}


@tool("write", effect=Effect(on="path", object="file", does=("delete",)))
def replace_in_file(state: WorldState, path: str, old: str, new: str) -> dict[str, Any]:
    """Replace one exact piece of text in a file. The old text must occur exactly once.

    Args:
        path: The file to edit.
        old: The exact text to replace, including whitespace; make it long enough to be unique.
        new: The text to put in its place.
    """
    text = _file(state, path)
    if not old:
        raise InvalidRequest("'old' must not be empty")
    count = text.count(old)
    if count == 0:
        raise NotFound(f"the text to replace does not occur in {path}; read the file and copy it exactly")
    if count > 1:
        raise InvalidRequest(f"the text to replace occurs {count} times in {path}; include more context")
    state.files[path] = text.replace(old, new, 1)
    return {"path": path, "replaced": 1}


# --------------------------------------------------------------------------------------------------------
# Request queue


@tool("read")
def list_requests(state: WorldState, status: RequestStatus | None = None) -> list[dict[str, Any]]:
    """List requests in the queue as stored (not necessarily in time order).

    Args:
        status: Only list requests with this status; omit to list all.
    """
    return [
        {"request_id": rid, **r.model_dump()}
        for rid, r in state.requests.items()
        if status is None or r.status == status
    ]


@tool("write", effect=Effect(on="request_id", object="request",
                                  when=(("status", "applied", "approve"), ("status", "rejected", "reject"))))
def set_request_status(
    state: WorldState, request_id: str, status: Literal["applied", "rejected", "superseded"], note: str = ""
) -> dict[str, Any]:
    """Record what was done with a request.

    Args:
        request_id: The request's id.
        status: 'applied' when carried out, 'rejected' when refused, 'superseded' when a later request
            replaced it.
        note: Optional short explanation.
    """
    if request_id not in state.requests:
        raise NotFound(f"request {request_id!r} does not exist")
    req = state.requests[request_id]
    req.status = status
    req.note = note
    return {"request_id": request_id, "status": status}


# --------------------------------------------------------------------------------------------------------
# Lookups and messages


@tool("read")
def find_contacts(state: WorldState, query: str) -> list[dict[str, Any]]:
    """Search the address book by name, email or team (case-insensitive substring).

    Args:
        query: Text to look for.
    """
    needle = query.strip().lower()
    if not needle:
        raise InvalidRequest("the query must not be empty")
    return [
        {"contact_id": cid, **c.model_dump()}
        for cid, c in state.contacts.items()
        if needle in c.name.lower() or needle in c.email.lower() or needle in c.team.lower()
    ]


def _lookup_key(table: Iterable[str], wanted: str) -> str | None:
    for key in table:
        if key.lower() == wanted.strip().lower():
            return key
    return None


@tool("read")
def get_weather(state: WorldState, city: str) -> dict[str, Any]:
    """Current weather for a city.

    Args:
        city: City name, e.g. 'Lisbon'.
    """
    key = _lookup_key(state.weather, city)
    if key is None:
        raise NotFound(f"no weather data for {city!r}")
    return {"city": key, **state.weather[key].model_dump()}


@tool("read")
def get_stock_quote(state: WorldState, symbol: str) -> dict[str, Any]:
    """Latest price of a stock.

    Args:
        symbol: Ticker symbol, e.g. 'ACME'.
    """
    key = _lookup_key(state.quotes, symbol)
    if key is None:
        raise NotFound(f"unknown symbol {symbol!r}")
    return {"symbol": key, **state.quotes[key].model_dump()}


@tool("write", effect=Effect(on="to", object="person", does=("send",), changes=False))
def send_message(state: WorldState, to: str, subject: str, body: str) -> dict[str, Any]:
    """Send an email.

    Args:
        to: The recipient's email address.
        subject: The subject line.
        body: The message text.
    """
    address = to.strip()
    if "@" not in address or " " in address:
        raise InvalidRequest(f"{to!r} is not an email address; look it up with find_contacts")
    state.outbox.append(Message(to=address.lower(), subject=subject, body=body))
    return {"sent": True, "to": address.lower()}


# --------------------------------------------------------------------------------------------------------

TOOLS: dict[str, Tool] = {
    t.name: t
    for t in (
        get_budget,
        list_orders,
        get_order,
        approve_order,
        reject_order,
        create_shipment,
        get_refund_policy,
        issue_refund,
        escalate_refund,
        kv_get,
        kv_list,
        kv_set,
        kv_delete,
        list_files,
        read_file,
        write_file,
        replace_in_file,
        list_requests,
        set_request_status,
        find_contacts,
        get_weather,
        get_stock_quote,
        send_message,
    )
}


def select_tools(names: Iterable[str], available: dict[str, Tool] | None = None) -> dict[str, Tool]:
    """The tools a task names, in its order. An unknown name is a task error that lists the valid ones."""
    pool = TOOLS if available is None else available
    chosen: dict[str, Tool] = {}
    for name in names:
        if name not in pool:
            raise WorldSpecError(f"unknown tool {name!r}; known tools: {', '.join(sorted(pool))}")
        if name in chosen:
            raise WorldSpecError(f"tool {name!r} is listed twice")
        chosen[name] = pool[name]
    return chosen
