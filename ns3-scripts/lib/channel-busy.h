// Each node's channel busy ratio per window of simulated time (ETSI TS 102 687 measures CBR over
// 100 ms), from ns-3's own PHY state: the time the PHY spent in CCA_BUSY, RX or TX, as its state
// helper's "State" trace logs it.
//
// The trace logs a period when the next one begins: TX at its start, RX at its end, and CCA_BUSY and
// IDLE only when the PHY next switches state, which a quiet node may not do for seconds. So when a
// window is closed, the part of it after a node's last logged period (its tail) is read from the
// state the PHY is in now: an RX or CCA_BUSY that is still on began where the log stops, and an
// IDLE PHY was busy only until its last CCA_BUSY ended, which a listener on the PHY keeps (ns-3
// does not expose it). A period logged later is counted only from the last closed window on.
#pragma once

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/wifi-module.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <vector>

namespace cavsim
{

// Keeps the end of a PHY's CCA_BUSY as WifiPhyStateHelper::SwitchMaybeToCcaBusy extends it.
// (HE's OBSS-PD reset and channel switching, which cut it short, do not occur on 802.11p.)
class CcaEndListener : public ns3::WifiPhyListener
{
  public:
    int64_t endNs = 0;

    void NotifyCcaBusyStart(ns3::Time duration, ns3::WifiChannelListType channelType, const std::vector<ns3::Time>&) override
    {
        if (channelType == ns3::WIFI_CHANLIST_PRIMARY)
        {
            endNs = std::max(endNs, (ns3::Simulator::Now() + duration).GetNanoSeconds());
        }
    }

    void NotifyRxStart(ns3::Time) override {}
    void NotifyRxEndOk() override {}
    void NotifyRxEndError() override {}
    void NotifyTxStart(ns3::Time, double) override {}
    void NotifySwitchingStart(ns3::Time) override {}
    void NotifySleep() override {}
    void NotifyOff() override {}
    void NotifyWakeup() override {}
    void NotifyOn() override {}
};

class ChannelBusyMeter
{
  public:
    // (node, window end [ns], busy time in the window [ns])
    using Sink = std::function<void(uint32_t, int64_t, int64_t)>;

    void Connect(const ns3::NetDeviceContainer& devices, int64_t windowNs)
    {
        m_windowNs = windowNs;
        m_nodes.resize(devices.GetN());
        for (uint32_t i = 0; i < devices.GetN(); ++i)
        {
            NodeState& n = m_nodes[i];
            n.state = ns3::DynamicCast<ns3::WifiNetDevice>(devices.Get(i))->GetPhy()->GetState();
            n.cca = std::make_unique<CcaEndListener>();
            n.state->RegisterListener(n.cca.get());
            n.state->TraceConnectWithoutContext("State", ns3::MakeCallback(&ChannelBusyMeter::Logged, this).Bind(i));
        }
    }

    bool Active() const { return m_windowNs > 0; }

    // Reports every window that ended at or before `t` (ns-3 has run every event up to `t`), in
    // window order and, within a window, node order.
    void Close(int64_t t, const Sink& sink)
    {
        for (int64_t end = m_closedNs + m_windowNs; end <= t; end += m_windowNs)
        {
            int64_t window = m_closedNs / m_windowNs;
            for (uint32_t i = 0; i < m_nodes.size(); ++i)
            {
                NodeState& n = m_nodes[i];
                int64_t from = std::max(n.loggedUntilNs, m_closedNs);
                int64_t busy = n.bins[window] + std::max<int64_t>(0, std::min(end, TailBusyUntil(n)) - from);
                n.bins.erase(window);
                sink(i, end, std::min(busy, m_windowNs));
            }
            m_closedNs = end;
        }
    }

    // Forgets the run; ns-3's objects (and the listeners' registrations) went with Simulator::Destroy.
    void Reset()
    {
        m_nodes.clear();
        m_windowNs = 0;
        m_closedNs = 0;
    }

  private:
    struct NodeState
    {
        ns3::Ptr<ns3::WifiPhyStateHelper> state;
        std::unique_ptr<CcaEndListener> cca;
        int64_t loggedUntilNs = 0;
        std::map<int64_t, int64_t> bins; // busy ns by window number, for windows not yet closed
    };

    // Where the busy part of the unlogged tail ends.
    static int64_t TailBusyUntil(const NodeState& n)
    {
        if (n.state->IsStateRx())
        {
            return std::numeric_limits<int64_t>::max();
        }
        return n.cca->endNs;
    }

    void Logged(uint32_t node, ns3::Time start, ns3::Time duration, WifiPhyState state)
    {
        NodeState& n = m_nodes[node];
        int64_t from = start.GetNanoSeconds();
        int64_t to = from + duration.GetNanoSeconds();
        n.loggedUntilNs = std::max(n.loggedUntilNs, to);
        if (state != WifiPhyState::CCA_BUSY && state != WifiPhyState::RX && state != WifiPhyState::TX)
        {
            return;
        }
        for (int64_t a = std::max(from, m_closedNs); a < to;)
        {
            int64_t window = a / m_windowNs;
            int64_t b = std::min(to, (window + 1) * m_windowNs);
            n.bins[window] += b - a;
            a = b;
        }
    }

    int64_t m_windowNs = 0;
    int64_t m_closedNs = 0; // every window before this is reported
    std::vector<NodeState> m_nodes;
};

} // namespace cavsim
