// What became of each cavsim frame at each intended receiver: delivered, or lost with the reason
// ns-3 gives (src/channel/frames.ts names the reasons). Shared by the lock-step program, which
// reports both, and the real-time one, which reports losses (the receiving vehicle logs arrivals).
// One channel per program, so the bookkeeping is one process-wide instance.
#pragma once

#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace cavsim
{

// A frame's intended receivers whose fate is not known yet, by node number: a flag each, where a
// std::set cost an allocation per receiver of every frame.
class OpenReceivers
{
  public:
    void insert(uint32_t node)
    {
        if (node >= m_open.size())
        {
            m_open.resize(node + 1, 0);
        }
        m_count += m_open[node] == 0 ? 1 : 0;
        m_open[node] = 1;
    }

    std::size_t erase(uint32_t node)
    {
        if (count(node) == 0)
        {
            return 0;
        }
        m_open[node] = 0;
        --m_count;
        return 1;
    }

    std::size_t count(uint32_t node) const { return node < m_open.size() && m_open[node] != 0 ? 1 : 0; }

    bool empty() const { return m_count == 0; }

    // In ascending order, as a copy: reporting an outcome closes a receiver and may forget the frame.
    std::vector<uint32_t> Snapshot() const
    {
        std::vector<uint32_t> nodes;
        nodes.reserve(m_count);
        for (uint32_t n = 0; n < m_open.size(); ++n)
        {
            if (m_open[n] != 0)
            {
                nodes.push_back(n);
            }
        }
        return nodes;
    }

  private:
    std::vector<uint8_t> m_open;
    std::size_t m_count = 0;
};

struct TrackedFrame
{
    int64_t number = 0; // the lock-step client's frame number
    std::string label;  // the cavsim datagram id (real-time)
    uint32_t from = 0;
    OpenReceivers open;
    bool broadcast = false;
    std::vector<double> rxPower; // dBm at each receiver, NaN where not known
    uint32_t airBytes = 0;       // the frame as the radio sends it (wifi: MAC header to FCS)
};

// reason is null for a delivery.
using OutcomeSink = std::function<void(const TrackedFrame& frame, uint32_t node, const std::string* reason, const std::string& power, const std::string& los)>;

struct FrameOutcomes
{
    OutcomeSink sink;
    // A failed attempt of a unicast is final only when the MAC does not retry (wired channels).
    bool macRetries = false;
    std::map<uint64_t, TrackedFrame> frames; // by packet uid
    std::map<std::pair<uint64_t, uint32_t>, std::string> lastFailure;   // a unicast attempt's failure
    // Per (sender, receiver) when a map is used: -1 not known, 0 blocked, 1 clear; `nodes` a row.
    std::vector<int8_t> lineOfSight;
    uint32_t nodes = 0;
    bool losKnown = false;

    void Reset()
    {
        frames.clear();
        lastFailure.clear();
        lineOfSight.clear();
        nodes = 0;
        losKnown = false;
    }
};

inline FrameOutcomes&
Outcomes()
{
    static FrameOutcomes outcomes;
    return outcomes;
}

inline TrackedFrame*
TrackedFrameOf(uint64_t uid)
{
    auto it = Outcomes().frames.find(uid);
    return it == Outcomes().frames.end() ? nullptr : &it->second;
}

inline void
TrackFrame(uint64_t uid, TrackedFrame frame)
{
    Outcomes().frames[uid] = std::move(frame);
}

// What a receiver got of the frame being put on the air [dBm], as the loss chain's last link saw it.
inline void
RecordRxPower(uint64_t uid, uint32_t node, double dbm)
{
    TrackedFrame* f = TrackedFrameOf(uid);
    if (f == nullptr)
    {
        return;
    }
    if (node >= f->rxPower.size())
    {
        f->rxPower.resize(node + 1, std::numeric_limits<double>::quiet_NaN());
    }
    f->rxPower[node] = dbm;
}

// NaN when not known.
inline double
RxPower(const TrackedFrame& f, uint32_t node)
{
    return node < f.rxPower.size() ? f.rxPower[node] : std::numeric_limits<double>::quiet_NaN();
}

inline double
RxPower(uint64_t uid, uint32_t node)
{
    const TrackedFrame* f = TrackedFrameOf(uid);
    return f == nullptr ? std::numeric_limits<double>::quiet_NaN() : RxPower(*f, node);
}

// Six decimals, as iostream's std::fixed prints them.
inline std::string
PowerText(const TrackedFrame& f, uint32_t node)
{
    double dbm = RxPower(f, node);
    if (std::isnan(dbm))
    {
        return "nan";
    }
    char text[64];
    std::snprintf(text, sizeof text, "%.6f", dbm);
    return text;
}

inline void
RecordLineOfSight(uint32_t from, uint32_t to, bool clear)
{
    FrameOutcomes& o = Outcomes();
    if (from >= o.nodes || to >= o.nodes)
    {
        return;
    }
    o.lineOfSight[static_cast<std::size_t>(from) * o.nodes + to] = clear ? 1 : 0;
}

inline std::string
LineOfSightText(uint32_t from, uint32_t to)
{
    const FrameOutcomes& o = Outcomes();
    if (!o.losKnown || from >= o.nodes || to >= o.nodes)
    {
        return "-";
    }
    int8_t known = o.lineOfSight[static_cast<std::size_t>(from) * o.nodes + to];
    return known < 0 ? "-" : (known != 0 ? "1" : "0");
}

// Reports the outcome at `node` once, and forgets the frame when every receiver has one.
inline void
Settle(uint64_t uid, uint32_t node, const std::string* reason)
{
    FrameOutcomes& o = Outcomes();
    TrackedFrame* f = TrackedFrameOf(uid);
    if (f == nullptr || f->open.erase(node) == 0)
    {
        return;
    }
    o.sink(*f, node, reason, PowerText(*f, node), LineOfSightText(f->from, node));
    o.lastFailure.erase({uid, node});
    if (f->open.empty())
    {
        o.frames.erase(uid);
    }
}

inline void
ReportDelivered(uint64_t uid, uint32_t node)
{
    Settle(uid, node, nullptr);
}

inline void
ReportLost(uint64_t uid, uint32_t node, const std::string& reason)
{
    Settle(uid, node, &reason);
}

// A failure at a receiver: final for a broadcast and where the MAC does not retry; otherwise
// remembered, and reported if the sender gives up.
inline void
ReceptionFailed(uint64_t uid, uint32_t node, const std::string& reason)
{
    TrackedFrame* f = TrackedFrameOf(uid);
    if (f == nullptr || f->open.count(node) == 0)
    {
        return;
    }
    if (f->broadcast || !Outcomes().macRetries)
    {
        ReportLost(uid, node, reason);
    }
    else
    {
        Outcomes().lastFailure[{uid, node}] = reason;
    }
}

// The sender could not queue the frame, or gave up on it: lost at every receiver still open.
inline void
LostAtEveryReceiver(uint64_t uid, const std::string& reason)
{
    TrackedFrame* f = TrackedFrameOf(uid);
    if (f == nullptr)
    {
        return;
    }
    for (uint32_t node : f->open.Snapshot())
    {
        ReportLost(uid, node, reason);
    }
}

inline void
WiredChannelLoss(uint32_t node, ns3::Ptr<const ns3::Packet> packet)
{
    ReceptionFailed(packet->GetUid(), node, "channel-loss");
}

inline void
WiredQueueDrop(ns3::Ptr<const ns3::Packet> packet)
{
    LostAtEveryReceiver(packet->GetUid(), "queue-drop");
}

// Loss traces of the csma and latency devices: a receiver's error model, a full queue, and (csma)
// a sender that gave up after its maximum number of backoffs.
inline void
ConnectWiredOutcomes(const ns3::NetDeviceContainer& devices, bool csma)
{
    Outcomes().macRetries = false;
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        devices.Get(i)->TraceConnectWithoutContext("PhyRxDrop", ns3::MakeBoundCallback(&WiredChannelLoss, i));
        if (csma)
        {
            devices.Get(i)->TraceConnectWithoutContext("MacTxDrop", ns3::MakeCallback(&WiredQueueDrop));
            devices.Get(i)->TraceConnectWithoutContext("PhyTxDrop", ns3::MakeCallback(&WiredQueueDrop));
        }
    }
}

} // namespace cavsim
