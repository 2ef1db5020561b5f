/* io_async.cpp — the one place faultline uses SimGrid's C++ API, for what SimGrid 3.32's C API lacks: it has
 * only blocking transfers and disk accesses (sg_host_sendto, sg_disk_write), so starting thousands of them at once
 * from C would need an actor each (s4u starts them asynchronously from one actor and waits for all); and it
 * cannot add a host to a loaded platform. */
#include "io_async.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <new>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Disk.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Io.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <string>
#include <vector>

/* A transfer of at most `rate` bytes/s. SimGrid 3.32 drops the rate of a host-to-host transfer (Comm::sendto_init:
 * the activity it starts is built from the hosts and the size only), but keeps that of a mailbox transfer, whose
 * ends are the hosts of the actors that put and get (as SimGrid's own comm-throttling example throttles): a
 * sender on the source host, a receiver on the destination host, which the caller joins. */
static simgrid::s4u::ActorPtr fl_io_throttled(const fl_io_op &op, long id)
{
  static int token;
  std::string name = "fl-io-" + std::to_string(id);
  auto bytes = static_cast<uint64_t>(op.bytes);
  double rate = op.rate;
  simgrid::s4u::Actor::create(name + "-put", op.src, [name, bytes, rate]() {
    simgrid::s4u::Mailbox::by_name(name)->put_init(&token, bytes)->set_rate(rate)->wait();
  });
  return simgrid::s4u::Actor::create(name + "-get", op.dst,
                                     [name]() { simgrid::s4u::Mailbox::by_name(name)->get<int>(); });
}

/* A disk access, at its weight (SimGrid's I/O priority: its share of the disk against the others'). */
static simgrid::s4u::ActivityPtr fl_io_disk(const fl_io_op &op)
{
  auto bytes = static_cast<uint64_t>(op.bytes);
  if (op.weight > 1.0)
    return op.disk
        ->io_init(bytes, op.kind == FL_IO_WRITE ? simgrid::s4u::Io::OpType::WRITE : simgrid::s4u::Io::OpType::READ)
        ->set_priority(op.weight)
        ->start();
  return op.kind == FL_IO_WRITE ? op.disk->write_async(bytes) : op.disk->read_async(bytes);
}

/* Start ops[lo, hi) and wait for them in order, from the calling actor; *last gets the clock when the last ended,
 * *first the clock when the last of those below index nfirst ended (left as it is when none is). */
static void fl_io_slice(const fl_io_op *ops, long lo, long hi, long nfirst, double *last, double *first)
{
  static long serial;
  std::vector<simgrid::s4u::ActivityPtr> acts;
  std::vector<simgrid::s4u::ActorPtr> throttled; /* acts[i] == nullptr: throttled[i] to join */
  acts.reserve(static_cast<size_t>(hi - lo));
  throttled.resize(static_cast<size_t>(hi - lo));
  for (long i = lo; i < hi; i++) {
    const fl_io_op &op = ops[i];
    auto bytes = static_cast<uint64_t>(op.bytes);
    switch (op.kind) {
    case FL_IO_SEND: {
      if (op.rate > 0) {
        throttled[static_cast<size_t>(i - lo)] = fl_io_throttled(op, serial++);
        acts.push_back(nullptr);
        break;
      }
      /* SimGrid 3.32 starts a host-to-host transfer as soon as both ends are set: the size first */
      simgrid::s4u::CommPtr c = simgrid::s4u::Comm::sendto_init();
      c->set_payload_size(bytes);
      c->set_source(op.src);
      c->set_destination(op.dst);
      acts.push_back(c);
      break;
    }
    case FL_IO_WRITE:
    case FL_IO_READ: acts.push_back(fl_io_disk(op)); break;
    }
  }
  for (size_t k = 0; k < acts.size(); k++) {
    if (acts[k])
      acts[k]->wait();
    else
      throttled[k]->join();
    double t = simgrid::s4u::Engine::get_clock();
    if (t > *last)
      *last = t;
    if (static_cast<long>(k) + lo + 1 <= nfirst)
      *first = *last;
  }
}

/* The operations are shared among about sqrt(n) actors on the caller's host, all started at this date: SimGrid 3.32
 * keeps the activities an actor started in a list it searches as each one ends, so one actor starting the 16,000
 * transfers and disk writes of a PFS checkpoint at 1M nodes spent 2 s in that search alone. */
extern "C" double fl_io_run_concurrent(const fl_io_op *ops, long n, long nfirst, double *first_s)
{
  double t0 = simgrid::s4u::Engine::get_clock();
  long nworkers = static_cast<long>(std::ceil(std::sqrt(static_cast<double>(n))));
  long per = nworkers > 0 ? (n + nworkers - 1) / nworkers : 0;
  std::vector<double> last(static_cast<size_t>(nworkers), t0), first(static_cast<size_t>(nworkers), t0);
  std::vector<simgrid::s4u::ActorPtr> workers;
  simgrid::s4u::Host *here = simgrid::s4u::this_actor::get_host();
  double end = t0, first_end = t0;
  for (long w = 0; w < nworkers; w++) {
    long lo = w * per, hi = lo + per < n ? lo + per : n;
    if (lo >= hi)
      break;
    double *pl = &last[static_cast<size_t>(w)], *pf = &first[static_cast<size_t>(w)];
    workers.push_back(simgrid::s4u::Actor::create(
        "fl-io-worker", here, [ops, lo, hi, nfirst, pl, pf]() { fl_io_slice(ops, lo, hi, nfirst, pl, pf); }));
  }
  for (auto &a : workers)
    a->join();
  for (size_t w = 0; w < workers.size(); w++) {
    end = std::max(end, last[w]);
    first_end = std::max(first_end, first[w]);
  }
  if (first_s)
    *first_s = first_end - t0;
  return end - t0;
}

/* A set's activities are started and awaited by about sqrt(n) worker actors when there are many (SimGrid 3.32
 * searches the list of the activities an actor started as each ends: one actor for a 1,024-node job's 2,048 spent
 * most of a run in that search); the set's own waiter joins them. */
struct fl_ioset {
  std::vector<simgrid::s4u::ActivityPtr> acts; /* nullptr until started */
  std::vector<simgrid::s4u::ActorPtr> workers;
  const fl_io_op *ops = nullptr;
  bool cancelled = false;
};

static simgrid::s4u::ActivityPtr fl_ioset_start_one(const fl_io_op &op)
{
  auto bytes = static_cast<uint64_t>(op.bytes);
  switch (op.kind) {
  case FL_IO_SEND: {
    simgrid::s4u::CommPtr c = simgrid::s4u::Comm::sendto_init();
    c->set_payload_size(bytes); /* SimGrid 3.32 starts it once both ends are set: the size first */
    c->set_source(op.src);
    c->set_destination(op.dst);
    return c;
  }
  case FL_IO_WRITE:
  case FL_IO_READ: return fl_io_disk(op);
  }
  return nullptr;
}

/* Wait for acts[lo, hi) in order; a cancelled one (or a host gone off) ends the wait. */
static void fl_ioset_wait_range(fl_ioset *s, size_t lo, size_t hi)
{
  for (size_t i = lo; i < hi && !s->cancelled; i++) {
    try {
      s->acts[i]->wait();
    } catch (const simgrid::Exception &) {
      s->cancelled = true; /* the others are stopped by whoever cancelled */
    }
  }
}

#define FL_IOSET_DIRECT 64 /* at most this many activities: started and awaited by the caller itself */

extern "C" fl_ioset *fl_ioset_start(const fl_io_op *ops, long n)
{
  auto *s = new (std::nothrow) fl_ioset();
  if (!s)
    return nullptr;
  s->acts.resize(static_cast<size_t>(n));
  s->ops = ops; /* the caller keeps them until fl_ioset_wait returns */
  if (n <= FL_IOSET_DIRECT) {
    for (long i = 0; i < n; i++)
      s->acts[static_cast<size_t>(i)] = fl_ioset_start_one(ops[i]);
    return s;
  }
  auto nworkers = static_cast<size_t>(std::ceil(std::sqrt(static_cast<double>(n))));
  size_t per = (static_cast<size_t>(n) + nworkers - 1) / nworkers;
  simgrid::s4u::Host *here = simgrid::s4u::this_actor::get_host();
  for (size_t lo = 0; lo < static_cast<size_t>(n); lo += per) {
    size_t hi = std::min(lo + per, static_cast<size_t>(n));
    s->workers.push_back(simgrid::s4u::Actor::create("fl-ioset", here, [s, lo, hi]() {
      for (size_t i = lo; i < hi && !s->cancelled; i++)
        s->acts[i] = fl_ioset_start_one(s->ops[i]);
      if (!s->cancelled)
        fl_ioset_wait_range(s, lo, hi);
    }));
  }
  return s;
}

extern "C" int fl_ioset_wait(fl_ioset *s)
{
  if (s->workers.empty())
    fl_ioset_wait_range(s, 0, s->acts.size());
  for (auto &w : s->workers)
    w->join();
  return s->cancelled ? 1 : 0;
}

extern "C" void fl_ioset_cancel(fl_ioset *s)
{
  s->cancelled = true;
  for (auto &a : s->acts)
    if (a && a->get_state() != simgrid::s4u::Activity::State::FINISHED &&
        a->get_state() != simgrid::s4u::Activity::State::CANCELED &&
        a->get_state() != simgrid::s4u::Activity::State::FAILED)
      a->cancel();
}

extern "C" void fl_ioset_free(fl_ioset *s)
{
  delete s;
}

extern "C" sg_host_t fl_sg_add_host(const char *name, double speed)
{
  simgrid::s4u::Host *h = simgrid::s4u::Engine::get_instance()->get_netzone_root()->create_host(name, speed);
  h->seal();
  return h;
}

/* A generated platform without a network (platform.c): the controller and n nodes in one zone without routing,
 * made by SimGrid's API in the order and with the names and speeds the XML form would give (node-0 ... node-n-1),
 * without writing a million lines for SimGrid's parser to read back. */
extern "C" sg_host_t fl_sg_build_plain(long n, double speed, sg_host_t *hosts)
{
  simgrid::s4u::NetZone *zone = simgrid::s4u::create_empty_zone("faultline");
  simgrid::s4u::Host *controller = zone->create_host("controller", speed);
  std::string name;
  controller->seal();
  for (long i = 0; i < n; i++) {
    name = "node-" + std::to_string(i);
    hosts[i] = zone->create_host(name, speed);
    hosts[i]->seal();
  }
  zone->seal();
  return controller;
}

/* The hosts SimGrid creates while it loads a platform, in creation order (fl_sg_watch_hosts). */
static std::vector<simgrid::s4u::Host *> *fl_created;

extern "C" void fl_sg_watch_hosts(void)
{
  if (fl_created)
    return;
  fl_created = new std::vector<simgrid::s4u::Host *>();
  simgrid::s4u::Host::on_creation_cb([](simgrid::s4u::Host &h) { fl_created->push_back(&h); });
}

extern "C" sg_host_t *fl_sg_all_hosts(size_t *n)
{
  const std::vector<simgrid::s4u::Host *> &all =
      fl_created ? *fl_created : simgrid::s4u::Engine::get_instance()->get_all_hosts();
  auto *v = static_cast<sg_host_t *>(malloc((all.size() ? all.size() : 1) * sizeof(sg_host_t)));
  *n = 0;
  if (!v)
    return nullptr;
  for (simgrid::s4u::Host *h : all)
    v[(*n)++] = h;
  return v;
}

/* ---- transfers and executions of task graphs ---- */

struct fl_sgc {
  simgrid::s4u::CommPtr comm;
  simgrid::s4u::Host *from, *to;
  int refs;
};

extern "C" fl_sgc *fl_sgc_send(sg_host_t from, sg_host_t to, double bytes)
{
  auto *c = new fl_sgc;
  c->refs = 1;
  c->from = from;
  c->to = to;
  c->comm = simgrid::s4u::Comm::sendto_async(from, to, static_cast<uint64_t>(bytes));
  return c;
}

extern "C" void fl_sgc_ref(fl_sgc *c)
{
  c->refs++;
}

extern "C" void fl_sgc_unref(fl_sgc *c)
{
  if (c && --c->refs == 0)
    delete c;
}

extern "C" int fl_sgc_wait(fl_sgc *c)
{
  try {
    c->comm->wait();
  } catch (const simgrid::Exception &) {
    return 1;
  }
  return 0;
}

extern "C" void fl_sgc_times(const fl_sgc *c, double *start, double *finish)
{
  *start = c->comm->get_start_time();
  *finish = c->comm->get_finish_time();
}

extern "C" void fl_sgc_cancel(fl_sgc *c)
{
  /* a transfer from or to a host that was turned off is ended by the kernel, though its s4u state may still say
   * started: cancelling it then crashes SimGrid 3.32, and there is nothing left to cancel */
  if (!c->from->is_on() || !c->to->is_on())
    return;
  auto s = c->comm->get_state();
  if (s == simgrid::s4u::Activity::State::STARTED || s == simgrid::s4u::Activity::State::STARTING ||
      s == simgrid::s4u::Activity::State::INITED)
    c->comm->cancel();
}

extern "C" const char *fl_sg_zone_name(sg_host_t host)
{
  return host->get_englobing_zone()->get_cname();
}

/* SimGrid 3.32's Exec::init() connects a callback to Host::on_state_change (to fail the execution if its host goes
 * off) and never disconnects it: every host turned on or off then calls the callbacks of every execution ever
 * started, and a run with failures slows down as it goes (10x10 grid world: 0.3 s for the first replica, 1.2 s for
 * the 20th; a 50x50 one spent 80 % of its time there). The signal numbers its callbacks in sequence, so the one
 * Exec::init() adds is the number after a probe's; it is disconnected when the execution is over, also when the
 * actor is killed while waiting (the guard's destructor runs as its stack unwinds). If the count does not say that
 * exactly one callback was added, it is left alone (the cost comes back, nothing breaks). */
namespace
{
struct fl_exec_slot {
  long id = -1;
  ~fl_exec_slot()
  {
    if (id >= 0)
      simgrid::s4u::Host::on_state_change.disconnect(static_cast<unsigned int>(id));
  }
};
} // namespace

extern "C" long fl_sg_state_callbacks(void)
{
  return simgrid::s4u::Host::on_state_change.get_slot_count();
}

extern "C" int fl_sg_exec(sg_host_t host, double flops)
{
  fl_exec_slot slot;
  try {
    auto &sig = simgrid::s4u::Host::on_state_change;
    unsigned int probe = sig.connect([](simgrid::s4u::Host const &) {});
    sig.disconnect(probe);
    int before = sig.get_slot_count();
    simgrid::s4u::ExecPtr e = simgrid::s4u::Exec::init();
    if (sig.get_slot_count() == before + 1)
      slot.id = static_cast<long>(probe) + 1;
    e->set_flops_amount(flops);
    e->set_host(host);
    e->start();
    e->wait();
  } catch (const simgrid::Exception &) {
    return 1;
  }
  return 0;
}
